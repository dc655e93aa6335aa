#include "backends/reference/reference_backend.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

#include "backends/reference/loss.h"
#include "backends/reference/networks.h"
#include "backends/reference/sgd.h"
#include "backends/session_data.h"
#include "core/errors.h"
#include "data/ptb.h"

namespace dlcbench {
namespace {

using reference::ParameterList;

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("{}", fmt::join(shape, "x")); }

ParameterSet export_parameters(const ParameterList& params) {
  ParameterSet set;
  for (const auto& p : params.items) set.push_back({p.name, p.value.shape, p.value.values});
  return set;
}

// Copies `given` (already in the layout) into the network's parameters and
// starts the optimiser's momentum again.
void import_parameters(ParameterList& params, const ParameterSet& given) {
  if (given.size() != params.items.size())
    throw std::logic_error("the reference network does not have the shared layout's parameters");
  for (std::size_t i = 0; i < given.size(); ++i) {
    auto& p = params.items[i];
    if (p.name != given[i].name || p.value.shape != given[i].shape)
      throw std::logic_error(fmt::format("the reference network's parameter {} is {} [{}], the layout's {} [{}]", i,
                                         p.name, shape_text(p.value.shape), given[i].name, shape_text(given[i].shape)));
    std::copy(given[i].values.begin(), given[i].values.end(), p.value.values.begin());
    p.velocity_started = false;
  }
}

reference::Sgd make_sgd(const models::SgdSpec& s) { return {s.learning_rate, s.momentum}; }

// What both kinds of session share: the parameters their network is built
// on, and the optimiser that updates them.
class ReferenceSession : public TrainingSession {
 public:
  std::int64_t parameter_count() const override { return params_.count(); }
  ParameterSet parameters() const override { return export_parameters(params_); }
  void set_parameters(const ParameterSet& p) override {
    check_parameters(p, spec_);
    import_parameters(params_, p);
  }

 protected:
  explicit ReferenceSession(const models::ModelSpec& spec) : spec_(spec), sgd_(make_sgd(spec.optimizer)) {}

  models::ModelSpec spec_;
  ParameterList params_;  // outlives the network, whose layers point into it
  reference::Sgd sgd_;
};

// FCN-5, AlexNet-R, ResNet-56: the same data handling as LibTorch's
// ReferenceClassifierSession, with a shuffle of our own.
class ReferenceClassifierSession : public ReferenceSession {
 public:
  ReferenceClassifierSession(const models::ModelSpec& spec, const ClassificationData& data, const CaseSpec& c)
      : ReferenceSession(spec),
        batch_(c.batch),
        examples_((check_examples(spec, data, c.batch), data), c.batch, c.seed) {
    net_ = reference::make_classifier(params_, spec, c.batch);
    import_parameters(params_, initial_parameters(spec, c.seed));
    load_batch(0);
  }

  void load_examples(const float* features, const std::int64_t* labels) override {
    x_ = features;
    y_ = labels;
  }

  void load_batch(std::size_t index) override {
    x_ = examples_.features(index);
    y_ = examples_.labels(index);
  }

  double train_step() override {
    float* scores = net_->forward(x_);
    const double loss = reference::softmax_cross_entropy(scores, y_, batch_, spec_.outputs());
    net_->backward(scores);  // the loss left its gradient in place of the scores
    sgd_.step(params_);
    return loss;
  }

 private:
  int batch_;
  std::unique_ptr<reference::ClassifierNetwork> net_;
  ShuffledExamples examples_;
  const float* x_ = nullptr;
  const std::int64_t* y_ = nullptr;
};

// The LSTM language model: truncated back-propagation through time over a
// [sequence, batch] window of the batchified text, the hidden state carried
// from one window to the next and reset when the windows wrap around.
class ReferenceLanguageModelSession : public ReferenceSession {
 public:
  ReferenceLanguageModelSession(const models::ModelSpec& spec, const TokenStream& text, const CaseSpec& c)
      : ReferenceSession(spec),
        lstm_spec_(std::get<models::LstmSpec>(spec.architecture)),
        clip_(spec.optimizer.clip_grad_norm) {
    batches_ = batchify(text.tokens, static_cast<std::size_t>(c.batch));
    windows_ = windows_per_epoch(batches_, static_cast<std::size_t>(lstm_spec_.sequence));
    net_ = reference::make_language_model(params_, lstm_spec_, c.batch);
    import_parameters(params_, initial_parameters(spec, c.seed));
    load_batch(0);
  }

  void load_batch(std::size_t index) override {
    const std::size_t start = start_window(index) * static_cast<std::size_t>(lstm_spec_.sequence);
    input_ = batches_.data.data() + start * batches_.batch;
    target_ = batches_.data.data() + (start + 1) * batches_.batch;
  }

  void load_tokens(std::size_t index, const std::int64_t* input, const std::int64_t* target) override {
    start_window(index);
    input_ = input;
    target_ = target;
  }

  double train_step() override {
    float* scores = net_->forward(input_);
    const std::int64_t rows = lstm_spec_.sequence * static_cast<std::int64_t>(batches_.batch);
    const double loss = reference::softmax_cross_entropy(scores, target_, rows, lstm_spec_.vocabulary);
    net_->backward(scores);
    if (clip_ > 0) reference::clip_grad_norm(params_, clip_);
    sgd_.step(params_);
    return loss;
  }

 private:
  // The window of step `index`; the hidden state restarts with each pass
  // over the text.
  std::size_t start_window(std::size_t index) {
    const std::size_t window = index % windows_;
    if (window == 0) net_->reset_state();
    return window;
  }

  models::LstmSpec lstm_spec_;
  double clip_;
  TokenBatches batches_;
  std::size_t windows_ = 0;
  std::unique_ptr<reference::LanguageModel> net_;
  const std::int64_t* input_ = nullptr;
  const std::int64_t* target_ = nullptr;
};

class ReferenceBackend : public Backend {
 public:
  explicit ReferenceBackend(int threads) : threads_(threads) {
    // One pool of threads, OpenMP's, for everything: OpenBLAS runs
    // single-threaded inside each OpenMP thread on its band of a product
    // (reference/gemm.h), so the two never compete for the cores.
    omp_set_num_threads(threads);
    openblas_set_num_threads(1);
  }

  nlohmann::json describe() const override {
    return {{"name", "reference"},
            {"library", "dlcbench reference engine on OpenBLAS"},
            {"version", openblas_get_config()},
            {"threads", {{"requested", threads_},
                         {"openmp", omp_get_max_threads()},
                         {"openblas_per_openmp_thread", openblas_get_num_threads()}}}};
  }

  std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload, const TrainingData& data,
                                           const CaseSpec& spec) override {
    return make_session<ReferenceLanguageModelSession, ReferenceClassifierSession>(workload, data, spec);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend(int threads) { return std::make_unique<ReferenceBackend>(threads); }

}  // namespace dlcbench
