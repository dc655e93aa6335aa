#include "backends/onednn/onednn_backend.h"

#include <omp.h>

#include <random>
#include <utility>

#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "backends/onednn/networks.h"
#include "backends/onednn/training.h"
#include "backends/session_data.h"
#include "core/errors.h"
#include "data/ptb.h"

namespace dlcbench {
namespace {

using onednn::Context;

// Image and feature classifiers: FCN-5, AlexNet-R, ResNet-56.
class OnednnClassifierSession : public TrainingSession {
 public:
  OnednnClassifierSession(std::shared_ptr<Context> context, const models::ModelSpec& spec, const ClassificationData& data,
                    const CaseSpec& c)
      : context_(std::move(context)), spec_(spec), sgd_(spec.optimizer), examples_((check_examples(spec, data, c.batch), data), c.batch, c.seed) {
    net_ = onednn::build_classifier(*context_, spec, c.batch);
    onednn::write_parameters(*context_, net_->program.parameters, initial_parameters(spec, c.seed));
  }

  void load_examples(const float* features, const std::int64_t* labels) override {
    net_->input.set_data_handle(const_cast<float*>(features));
    labels_now_ = labels;
  }

  void load_batch(std::size_t index) override {
    load_examples(examples_.features(index), examples_.labels(index));
  }

  double train_step() override {
    if (!labels_now_) throw std::logic_error("train_step before a batch was loaded");
    net_->program.run_forward(*context_);
    const double loss = onednn::softmax_cross_entropy(net_->scores, labels_now_);
    net_->program.run_backward(*context_);
    sgd_.step(net_->program.parameters);
    return loss;
  }

  std::int64_t parameter_count() const override { return dlcbench::parameter_count(parameter_layout(spec_)); }
  ParameterSet parameters() const override { return onednn::read_parameters(*context_, net_->program.parameters); }
  void set_parameters(const ParameterSet& p) override {
    check_parameters(p, spec_);
    onednn::write_parameters(*context_, net_->program.parameters, p);
    sgd_.restart();
  }

 private:
  std::shared_ptr<Context> context_;
  models::ModelSpec spec_;
  onednn::Sgd sgd_;
  ShuffledExamples examples_;
  std::unique_ptr<onednn::ClassifierNetwork> net_;
  const std::int64_t* labels_now_ = nullptr;
};

// The LSTM language model: truncated back-propagation through time over a
// [steps, batch] token matrix, the state carried from one window to the next
// (without gradient) and reset when the windows wrap around.
class OnednnLanguageModelSession : public TrainingSession {
 public:
  OnednnLanguageModelSession(std::shared_ptr<Context> context, const models::ModelSpec& spec, const TokenStream& text, const CaseSpec& c)
      : context_(std::move(context)),
        spec_(spec),
        lstm_spec_(std::get<models::LstmSpec>(spec.architecture)),
        sgd_(spec.optimizer),
        clip_(spec.optimizer.clip_grad_norm) {
    const TokenBatches batches = batchify(text.tokens, static_cast<std::size_t>(c.batch));
    windows_ = windows_per_epoch(batches, static_cast<std::size_t>(lstm_spec_.sequence));
    matrix_ = batches.data;
    columns_ = batches.batch;
    net_ = onednn::build_language_model(*context_, lstm_spec_, c.batch);
    onednn::write_parameters(*context_, net_->program.parameters, initial_parameters(spec, c.seed));
  }

  void load_batch(std::size_t index) override {
    const std::size_t start = start_window(index) * static_cast<std::size_t>(lstm_spec_.sequence);
    net_->tokens = matrix_.data() + start * columns_;
    target_ = net_->tokens + columns_;  // the next row: each position's next word
  }

  void load_tokens(std::size_t index, const std::int64_t* input, const std::int64_t* target) override {
    start_window(index);
    net_->tokens = input;
    target_ = target;
  }

  double train_step() override {
    if (!target_) throw std::logic_error("train_step before a window was loaded");
    net_->program.run_forward(*context_);
    const double loss = onednn::softmax_cross_entropy(net_->scores, target_);
    net_->program.run_backward(*context_);
    if (clip_ > 0) onednn::clip_gradient_norm(net_->program.parameters, clip_);
    sgd_.step(net_->program.parameters);
    for (const auto& layer : net_->layers) layer.carry_state();
    return loss;
  }

  std::int64_t parameter_count() const override { return dlcbench::parameter_count(parameter_layout(spec_)); }
  ParameterSet parameters() const override { return onednn::read_parameters(*context_, net_->program.parameters); }
  void set_parameters(const ParameterSet& p) override {
    check_parameters(p, spec_);
    onednn::write_parameters(*context_, net_->program.parameters, p);
    sgd_.restart();
  }

 private:
  // The window of step `index`; the state restarts with each pass over the
  // text.
  std::size_t start_window(std::size_t index) {
    const std::size_t window = index % windows_;
    if (window == 0)
      for (const auto& layer : net_->layers) layer.reset_state();
    return window;
  }

  std::shared_ptr<Context> context_;
  models::ModelSpec spec_;
  models::LstmSpec lstm_spec_;
  onednn::Sgd sgd_;
  double clip_;
  std::size_t windows_ = 0, columns_ = 0;
  std::vector<std::int64_t> matrix_;
  std::unique_ptr<onednn::LanguageModelNetwork> net_;
  const std::int64_t* target_ = nullptr;
};

std::string isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::all: return "all";
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return fmt::format("isa {}", static_cast<unsigned>(isa));
  }
}

class OnednnBackend : public Backend {
 public:
  explicit OnednnBackend(int threads) : threads_(threads) {
    // oneDNN (Debian's build) runs on OpenMP: its thread count is the pool's.
    omp_set_num_threads(threads);
  }

  nlohmann::json describe() const override {
    const dnnl_version_t* v = dnnl_version();
    return {{"name", "onednn"},
            {"library", "oneDNN"},
            {"version", fmt::format("{}.{}.{}", v->major, v->minor, v->patch)},
            {"isa", isa_name(dnnl::get_effective_cpu_isa())},
            {"threads", {{"requested", threads_}, {"openmp", omp_get_max_threads()}}}};
  }

  std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload, const TrainingData& data,
                                           const CaseSpec& spec) override {
    return make_session<OnednnLanguageModelSession, OnednnClassifierSession>(workload, data, spec, context_);
  }

 private:
  int threads_;
  // Shared with the sessions, which may outlive the back end.
  std::shared_ptr<Context> context_ = std::make_shared<Context>();
};

}  // namespace

std::unique_ptr<Backend> make_onednn_backend(int threads) { return std::make_unique<OnednnBackend>(threads); }

}  // namespace dlcbench
