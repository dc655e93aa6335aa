#include "backends/reference/networks.h"

#include "backends/network_walk/classifiers.h"

namespace dlcbench::reference {

std::unique_ptr<ClassifierNetwork> make_classifier(ParameterList& params, const models::ModelSpec& spec,
                                                   std::int64_t batch) {
  return walk::make_classifier(Layers{&params}, spec, batch);
}

std::unique_ptr<LanguageModel> make_language_model(ParameterList& params, const models::LstmSpec& spec,
                                                   std::int64_t batch) {
  return std::make_unique<LanguageModel>(Layers{&params}, spec, batch);
}

}  // namespace dlcbench::reference
