#include "backends/cuda/networks.h"

#include "backends/network_walk/classifiers.h"

namespace dlcbench::cuda {

std::unique_ptr<ClassifierNetwork> make_classifier(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::ModelSpec& spec, std::int64_t batch) {
  auto net = walk::make_classifier(Layers{&gpu, &params}, spec, batch);
  params.check_all_taken();
  return net;
}

std::unique_ptr<LanguageModel> make_language_model(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::LstmSpec& spec, std::int64_t batch) {
  auto net = std::make_unique<LanguageModel>(Layers{&gpu, &params}, spec, batch);
  params.check_all_taken();
  return net;
}

}  // namespace dlcbench::cuda
