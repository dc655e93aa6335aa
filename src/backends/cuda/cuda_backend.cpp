#include "backends/cuda/cuda_backend.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/gpu_micro.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/networks.h"
#include "backends/cuda/optimizer.h"
#include "backends/session_data.h"
#include "data/ptb.h"

namespace dlcbench::cuda {
namespace {

// Labels and tokens are checked on the host as they are loaded (not timed),
// with the reference engine's messages: the kernels index with them unchecked.
void check_labels(const std::int64_t* labels, std::size_t count, std::int64_t classes) {
  for (std::size_t i = 0; i < count; ++i)
    if (labels[i] < 0 || labels[i] >= classes)
      throw std::out_of_range(fmt::format("label {} is outside the {} classes", labels[i], classes));
}

void check_tokens(const std::int64_t* tokens, std::size_t count, std::int64_t vocabulary) {
  for (std::size_t i = 0; i < count; ++i)
    if (tokens[i] < 0 || tokens[i] >= vocabulary)
      throw std::out_of_range(
          fmt::format("token {} is outside the vocabulary of {} words", tokens[i], vocabulary));
}

// Synchronous copy to the device on the session's stream: loading is not timed.
template <class T>
void upload(const GpuContext& gpu, const T* from, std::size_t count, T* to) {
  DLCBENCH_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, gpu.stream()));
  gpu.synchronize();
}

class Event {
 public:
  Event() { DLCBENCH_CUDA(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// What both sessions do around their forward and backward passes: the
// parameters and their optimiser, the loss, and the CUDA events around the
// whole step.
class Step {
 public:
  Step(std::shared_ptr<GpuContext> gpu, const models::ModelSpec& spec, std::uint64_t seed)
      : gpu_(std::move(gpu)),
        spec_(spec),
        params_(parameter_layout(spec)),
        optimizer_(spec.optimizer),
        loss_sum_(1),
        loss_host_(sizeof(double)) {
    params_.upload(initial_parameters(spec, seed), gpu_->stream());
  }

  const GpuContext& gpu() const { return *gpu_; }
  DeviceParameters& params() { return params_; }

  // Before the forward pass: returns where the loss kernel adds the rows' losses.
  double* begin() {
    DLCBENCH_CUDA(cudaEventRecord(start_.get(), gpu_->stream()));
    DLCBENCH_CUDA(cudaMemsetAsync(loss_sum_.data(), 0, sizeof(double), gpu_->stream()));
    return loss_sum_.data();
  }

  // After the backward pass: the optimiser's step, the end of the timing,
  // and the wait for the loss (so the caller's clock covers the GPU's work).
  double finish(std::int64_t rows) {
    optimizer_.step(params_, gpu_->stream());
    DLCBENCH_CUDA(cudaEventRecord(stop_.get(), gpu_->stream()));
    DLCBENCH_CUDA(
        cudaMemcpyAsync(loss_host_.get(), loss_sum_.data(), sizeof(double), cudaMemcpyDeviceToHost, gpu_->stream()));
    gpu_->synchronize();
    float milliseconds = 0;
    DLCBENCH_CUDA(cudaEventElapsedTime(&milliseconds, start_.get(), stop_.get()));
    gpu_seconds_ = milliseconds / 1000.0;
    return *static_cast<const double*>(loss_host_.get()) / static_cast<double>(rows);
  }

  nlohmann::json detail() const { return {{"gpu_seconds", gpu_seconds_}}; }
  std::int64_t parameter_count() const { return params_.count(); }
  ParameterSet parameters() const { return params_.download(gpu_->stream()); }
  void set_parameters(const ParameterSet& p) {
    check_parameters(p, spec_);
    params_.upload(p, gpu_->stream());
  }

 private:
  std::shared_ptr<GpuContext> gpu_;
  models::ModelSpec spec_;
  DeviceParameters params_;
  Optimizer optimizer_;
  DeviceArray<double> loss_sum_;
  PinnedMemory loss_host_;
  Event start_, stop_;
  double gpu_seconds_ = 0;
};

// FCN-5, AlexNet-R, ResNet-56: the reference engine's data handling, with
// each batch copied to the device as it is loaded.
class CudaClassifierSession : public TrainingSession {
 public:
  CudaClassifierSession(std::shared_ptr<GpuContext> gpu, const models::ModelSpec& spec, const ClassificationData& data,
                    const CaseSpec& c)
      : step_(std::move(gpu), spec, c.seed),
        batch_(c.batch),
        classes_(spec.outputs()),
        examples_((check_examples(spec, data, c.batch), data), c.batch, c.seed),
        input_(static_cast<std::size_t>(c.batch) * examples_.example_size()),
        labels_(static_cast<std::size_t>(c.batch)) {
    net_ = make_classifier(step_.gpu(), step_.params(), spec, c.batch);
    load_batch(0);
  }

  void load_examples(const float* features, const std::int64_t* labels) override {
    check_labels(labels, labels_.size(), classes_);
    upload(step_.gpu(), features, input_.size(), input_.data());
    upload(step_.gpu(), labels, labels_.size(), labels_.data());
  }

  void load_batch(std::size_t index) override { load_examples(examples_.features(index), examples_.labels(index)); }

  double train_step() override {
    double* loss_sum = step_.begin();
    float* scores = net_->forward(input_.data());
    kernels::softmax_cross_entropy(scores, labels_.data(), batch_, classes_, loss_sum, step_.gpu().stream());
    net_->backward(scores);  // the loss left its gradient in place of the scores
    return step_.finish(batch_);
  }

  nlohmann::json step_detail() const override { return step_.detail(); }
  std::int64_t parameter_count() const override { return step_.parameter_count(); }
  ParameterSet parameters() const override { return step_.parameters(); }
  void set_parameters(const ParameterSet& p) override { step_.set_parameters(p); }

 private:
  Step step_;
  std::int64_t batch_, classes_;
  ShuffledExamples examples_;
  DeviceArray<float> input_;
  DeviceArray<std::int64_t> labels_;
  std::unique_ptr<ClassifierNetwork> net_;
};

// The LSTM language model: truncated back-propagation through time over a
// [sequence, batch] window of the batchified text, the hidden state carried
// from one window to the next and reset when the windows wrap around, as the
// reference engine.
class CudaLanguageModelSession : public TrainingSession {
 public:
  CudaLanguageModelSession(std::shared_ptr<GpuContext> gpu, const models::ModelSpec& spec, const TokenStream& text,
                       const CaseSpec& c)
      : step_(std::move(gpu), spec, c.seed),
        lstm_(std::get<models::LstmSpec>(spec.architecture)),
        batches_(batchify(text.tokens, static_cast<std::size_t>(c.batch))),
        windows_(windows_per_epoch(batches_, static_cast<std::size_t>(lstm_.sequence))),
        rows_(lstm_.sequence * c.batch),
        input_(static_cast<std::size_t>(rows_)),
        target_(static_cast<std::size_t>(rows_)),
        net_(make_language_model(step_.gpu(), step_.params(), lstm_, c.batch)) {
    load_batch(0);
  }

  void load_batch(std::size_t index) override {
    const std::size_t start = start_window(index) * static_cast<std::size_t>(lstm_.sequence);
    copy_window(batches_.data.data() + start * batches_.batch, batches_.data.data() + (start + 1) * batches_.batch);
  }

  void load_tokens(std::size_t index, const std::int64_t* input, const std::int64_t* target) override {
    start_window(index);
    copy_window(input, target);
  }

  double train_step() override {
    double* loss_sum = step_.begin();
    float* scores = net_->forward(input_.data());
    kernels::softmax_cross_entropy(scores, target_.data(), rows_, lstm_.vocabulary, loss_sum, step_.gpu().stream());
    net_->backward(scores);
    return step_.finish(rows_);
  }

  nlohmann::json step_detail() const override { return step_.detail(); }
  std::int64_t parameter_count() const override { return step_.parameter_count(); }
  ParameterSet parameters() const override { return step_.parameters(); }
  void set_parameters(const ParameterSet& p) override { step_.set_parameters(p); }

 private:
  // The window of step `index`; the hidden state restarts with each pass
  // over the text.
  std::size_t start_window(std::size_t index) {
    const std::size_t window = index % windows_;
    if (window == 0) net_->reset_state();
    return window;
  }

  void copy_window(const std::int64_t* input, const std::int64_t* target) {
    const auto count = static_cast<std::size_t>(rows_);
    check_tokens(input, count, lstm_.vocabulary);
    check_tokens(target, count, lstm_.vocabulary);
    upload(step_.gpu(), input, count, input_.data());
    upload(step_.gpu(), target, count, target_.data());
  }

  Step step_;
  models::LstmSpec lstm_;
  TokenBatches batches_;
  std::size_t windows_;
  std::int64_t rows_;
  DeviceArray<std::int64_t> input_, target_;
  std::unique_ptr<LanguageModel> net_;
};

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int threads) : threads_(threads), gpu_(std::make_shared<GpuContext>()) {}

  nlohmann::json describe() const override {
    const nlohmann::json libraries = build_info();
    int runtime = 0, driver = 0;
    DLCBENCH_CUDA(cudaRuntimeGetVersion(&runtime));
    DLCBENCH_CUDA(cudaDriverGetVersion(&driver));
    return {{"name", "cuda"},
            {"library", fmt::format("cuBLAS {} + cuDNN {}", libraries.at("cublas").get<std::string>(),
                                    libraries.at("cudnn").get<std::string>())},
            {"version", fmt::format("CUDA runtime {}.{}, driver {}.{}", runtime / 1000, runtime % 1000 / 10,
                                    driver / 1000, driver % 1000 / 10)},
            {"device", gpu_->device_name()},
            {"math", "FP32 (TF32 off)"},
            // The host only queues work for the GPU, from one thread.
            {"threads", {{"requested", threads_}, {"host", 1}}}};
  }

  std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload, const TrainingData& data,
                                           const CaseSpec& spec) override {
    return make_session<CudaLanguageModelSession, CudaClassifierSession>(workload, data, spec, gpu_);
  }

 private:
  int threads_;
  std::shared_ptr<GpuContext> gpu_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int threads) { return std::make_unique<CudaBackend>(threads); }

}  // namespace dlcbench::cuda
