#include "backends/torch/torch_backend.h"

#include <fmt/format.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

// A multi-layer perceptron as the spec describes it, in the style of the
// PyTorch C++ MNIST example.
struct MlpNet : torch::nn::Module {
  explicit MlpNet(const models::MlpSpec& spec) : activation(spec.activation) {
    for (std::size_t i = 1; i < spec.layer_sizes.size(); ++i) {
      auto layer = register_module(fmt::format("fc{}", i),
                                   torch::nn::Linear(spec.layer_sizes[i - 1], spec.layer_sizes[i]));
      torch::NoGradGuard no_grad;
      torch::nn::init::xavier_uniform_(layer->weight);
      torch::nn::init::zeros_(layer->bias);
      layers.push_back(layer);
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    for (std::size_t i = 0; i + 1 < layers.size(); ++i) {
      x = layers[i]->forward(x);
      x = activation == models::Activation::kSigmoid ? torch::sigmoid(x) : torch::relu(x);
    }
    return layers.back()->forward(x);
  }

  models::Activation activation;
  std::vector<torch::nn::Linear> layers;
};

class TorchMlpSession : public TrainingSession {
 public:
  TorchMlpSession(const models::MlpSpec& spec, const ClassificationData& data, const CaseSpec& c)
      : net_(std::make_shared<MlpNet>(spec)),
        optimizer_(net_->parameters(), torch::optim::SGDOptions(spec.optimizer.learning_rate)
                                           .momentum(spec.optimizer.momentum)),
        batch_(c.batch) {
    if (data.example_size() != static_cast<std::size_t>(spec.layer_sizes.front()))
      throw UsageError(fmt::format("{} expects {} inputs per example, data set {} has {}", spec.name,
                                   spec.layer_sizes.front(), data.name, data.example_size()));
    if (data.count < static_cast<std::size_t>(c.batch))
      throw UsageError(fmt::format("data set {} has {} examples, fewer than one batch of {}",
                                   data.name, data.count, c.batch));
    const auto n = static_cast<std::int64_t>(data.count);
    auto features = torch::from_blob(const_cast<float*>(data.features.data()),
                                     {n, static_cast<std::int64_t>(data.example_size())});
    auto labels = torch::from_blob(const_cast<std::int64_t*>(data.labels.data()), {n}, torch::kInt64);
    // Shuffle once, seeded, so consecutive batches mix the classes.
    auto order = torch::randperm(n, torch::kInt64);
    features_ = features.index_select(0, order);
    labels_ = labels.index_select(0, order);
    batches_ = data.count / static_cast<std::size_t>(c.batch);
  }

  void load_batch(std::size_t index) override {
    const auto start = static_cast<std::int64_t>((index % batches_) * static_cast<std::size_t>(batch_));
    x_ = features_.narrow(0, start, batch_);
    y_ = labels_.narrow(0, start, batch_);
  }

  double train_step() override {
    optimizer_.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net_->forward(x_), y_);
    loss.backward();
    optimizer_.step();
    return loss.item<double>();
  }

  std::int64_t parameter_count() const override {
    std::int64_t n = 0;
    for (const auto& p : net_->parameters()) n += p.numel();
    return n;
  }

 private:
  std::shared_ptr<MlpNet> net_;
  torch::optim::SGD optimizer_;
  int batch_;
  std::size_t batches_ = 0;
  torch::Tensor features_, labels_, x_, y_;
};

class TorchBackend : public Backend {
 public:
  explicit TorchBackend(int threads) : threads_(threads) {
    // Debian's LibTorch starts with one thread; set it explicitly.
    torch::set_num_threads(threads);
  }

  nlohmann::json describe() const override {
    return {{"name", "torch"},
            {"library", "LibTorch"},
            {"version", fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                    TORCH_VERSION_PATCH)},
            {"threads", {{"requested", threads_},
                         {"intra_op", torch::get_num_threads()},
                         {"inter_op", torch::get_num_interop_threads()}}}};
  }

  std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload,
                                           const ClassificationData& data,
                                           const CaseSpec& spec) override {
    torch::manual_seed(spec.seed);
    return std::make_unique<TorchMlpSession>(workload.model, data, spec);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_torch_backend(int threads) {
  return std::make_unique<TorchBackend>(threads);
}

}  // namespace dlcbench
