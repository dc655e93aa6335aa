#include "backends/torch/torch_backend.h"

#include <fmt/format.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "backends/session_data.h"
#include "backends/torch/networks.h"
#include "core/errors.h"
#include "data/ptb.h"

namespace dlcbench {
namespace {

using torch_backend::Classifier;
using torch_backend::LanguageModel;

torch::optim::SGD make_sgd(const std::vector<torch::Tensor>& params, const models::SgdSpec& s) {
  return torch::optim::SGD(params, torch::optim::SGDOptions(s.learning_rate).momentum(s.momentum));
}

// The network's parameters in the shared layout (backends/parameters.h):
// LibTorch's own names are the layout's names.
ParameterSet export_parameters(const torch::nn::Module& net, const models::ModelSpec& spec) {
  const auto named = net.named_parameters(/*recurse=*/true);
  ParameterSet set = parameter_layout(spec);
  for (auto& p : set) {
    const torch::Tensor* t = named.find(p.name);
    if (!t) throw std::logic_error(fmt::format("the LibTorch {} has no parameter {}", spec.name, p.name));
    const torch::Tensor values = t->detach().to(torch::kFloat32).contiguous();
    p.values.assign(values.data_ptr<float>(), values.data_ptr<float>() + values.numel());
  }
  return set;
}

void import_parameters(torch::nn::Module& net, torch::optim::Optimizer& optimizer, const ParameterSet& given,
                       const models::ModelSpec& spec) {
  check_parameters(given, spec);
  torch::NoGradGuard no_grad;
  auto named = net.named_parameters(/*recurse=*/true);
  for (const auto& p : given)
    named[p.name].copy_(torch::from_blob(const_cast<float*>(p.values.data()), p.shape, torch::kFloat32));
  optimizer.state().clear();  // momentum starts again with the new weights
}

// Image and feature classifiers: FCN-5, AlexNet-R, ResNet-56.
class TorchClassifierSession : public TrainingSession {
 public:
  TorchClassifierSession(const models::ModelSpec& spec, const ClassificationData& data, const CaseSpec& c)
      : spec_(spec), net_(torch_backend::make_classifier(spec)), optimizer_(make_sgd(net_->parameters(), spec.optimizer)),
        batch_(c.batch) {
    check_examples(spec, data, c.batch);
    const auto n = static_cast<std::int64_t>(data.count);
    std::vector<std::int64_t> shape = {n};
    shape.insert(shape.end(), data.example_shape.begin(), data.example_shape.end());
    auto features = torch::from_blob(const_cast<float*>(data.features.data()), shape);
    auto labels = torch::from_blob(const_cast<std::int64_t*>(data.labels.data()), {n}, torch::kInt64);
    // Shuffle once, seeded, so consecutive batches mix the classes.
    auto order = torch::randperm(n, torch::kInt64);
    features_ = features.index_select(0, order);
    labels_ = labels.index_select(0, order);
    batches_ = data.count / static_cast<std::size_t>(c.batch);
    batch_shape_ = shape;
    batch_shape_[0] = c.batch;
    net_->train();
  }

  void load_examples(const float* features, const std::int64_t* labels) override {
    x_ = torch::from_blob(const_cast<float*>(features), batch_shape_);
    y_ = torch::from_blob(const_cast<std::int64_t*>(labels), {batch_}, torch::kInt64);
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

  std::int64_t parameter_count() const override { return count(net_->parameters()); }
  ParameterSet parameters() const override { return export_parameters(*net_, spec_); }
  void set_parameters(const ParameterSet& p) override { import_parameters(*net_, optimizer_, p, spec_); }

  static std::int64_t count(const std::vector<torch::Tensor>& params) {
    std::int64_t n = 0;
    for (const auto& p : params) n += p.numel();
    return n;
  }

 private:
  models::ModelSpec spec_;
  std::shared_ptr<Classifier> net_;
  torch::optim::SGD optimizer_;
  int batch_;
  std::size_t batches_ = 0;
  std::vector<std::int64_t> batch_shape_;
  torch::Tensor features_, labels_, x_, y_;
};

// The LSTM language model: truncated back-propagation through time over a
// [steps, batch] token matrix, the hidden state carried from one window to
// the next (detached) and reset when the windows wrap around.
class TorchLanguageModelSession : public TrainingSession {
 public:
  TorchLanguageModelSession(const models::ModelSpec& spec, const TokenStream& text, const CaseSpec& c)
      : spec_(spec),
        lstm_spec_(std::get<models::LstmSpec>(spec.architecture)),
        net_(std::make_shared<LanguageModel>(lstm_spec_)),
        optimizer_(make_sgd(net_->parameters(), spec.optimizer)),
        clip_(spec.optimizer.clip_grad_norm) {
    const TokenBatches batches = batchify(text.tokens, static_cast<std::size_t>(c.batch));
    windows_ = windows_per_epoch(batches, static_cast<std::size_t>(lstm_spec_.sequence));
    matrix_ = torch::from_blob(const_cast<std::int64_t*>(batches.data.data()),
                               {static_cast<std::int64_t>(batches.steps), static_cast<std::int64_t>(batches.batch)},
                               torch::kInt64)
                  .clone();
    state_ = net_->initial_state(c.batch);
    net_->train();
  }

  void load_batch(std::size_t index) override {
    const auto start = static_cast<std::int64_t>(start_window(index)) * lstm_spec_.sequence;
    input_ = matrix_.narrow(0, start, lstm_spec_.sequence);
    target_ = matrix_.narrow(0, start + 1, lstm_spec_.sequence);
  }

  void load_tokens(std::size_t index, const std::int64_t* input, const std::int64_t* target) override {
    start_window(index);
    const std::vector<std::int64_t> shape = {lstm_spec_.sequence, matrix_.size(1)};
    input_ = torch::from_blob(const_cast<std::int64_t*>(input), shape, torch::kInt64);
    target_ = torch::from_blob(const_cast<std::int64_t*>(target), shape, torch::kInt64);
  }

  double train_step() override {
    optimizer_.zero_grad();
    auto [scores, state] = net_->forward(input_, state_);
    auto loss = torch::nn::functional::cross_entropy(scores, target_.reshape({-1}));
    loss.backward();
    if (clip_ > 0) torch::nn::utils::clip_grad_norm_(net_->parameters(), clip_);
    optimizer_.step();
    state_ = {std::get<0>(state).detach(), std::get<1>(state).detach()};
    return loss.item<double>();
  }

  std::int64_t parameter_count() const override { return TorchClassifierSession::count(net_->parameters()); }
  ParameterSet parameters() const override { return export_parameters(*net_, spec_); }
  void set_parameters(const ParameterSet& p) override { import_parameters(*net_, optimizer_, p, spec_); }

 private:
  // The window of step `index`; the hidden state restarts with each pass
  // over the text.
  std::size_t start_window(std::size_t index) {
    const std::size_t window = index % windows_;
    if (window == 0) state_ = net_->initial_state(matrix_.size(1));
    return window;
  }

  models::ModelSpec spec_;
  models::LstmSpec lstm_spec_;
  std::shared_ptr<LanguageModel> net_;
  torch::optim::SGD optimizer_;
  double clip_;
  std::size_t windows_ = 0;
  torch::Tensor matrix_, input_, target_;
  torch_backend::LstmState state_;
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
            {"version", fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH)},
            {"threads", {{"requested", threads_},
                         {"intra_op", torch::get_num_threads()},
                         {"inter_op", torch::get_num_interop_threads()}}}};
  }

  std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload, const TrainingData& data,
                                           const CaseSpec& spec) override {
    torch::manual_seed(spec.seed);
    return make_session<TorchLanguageModelSession, TorchClassifierSession>(workload, data, spec);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_torch_backend(int threads) { return std::make_unique<TorchBackend>(threads); }

}  // namespace dlcbench
