// The networks of src/workloads/models built from the cuda back end's
// layers for a fixed batch, as the reference engine builds them
// (reference/networks.h): every device buffer a training step needs is
// allocated here, none during the step. Tensors are NCHW, so examples go in
// as the data sets store them and features flatten as x.flatten(1).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/embedding.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/linear.h"
#include "backends/cuda/lstm.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::cuda {

// An image or feature classifier: examples in, class scores out.
class ClassifierNetwork {
 public:
  virtual ~ClassifierNetwork() = default;
  // examples [batch, ...] on the device -> scores [batch, classes]. The
  // examples must stay unchanged until backward().
  virtual float* forward(const float* examples) = 0;
  // The gradient of the loss with respect to the scores -> the gradients of
  // all parameters. May overwrite grad_scores.
  virtual void backward(float* grad_scores) = 0;
};

// Takes its tensors from `params` (made from parameter_layout(spec)).
std::unique_ptr<ClassifierNetwork> make_classifier(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::ModelSpec& spec, std::int64_t batch);

// Embedding, stacked LSTM layers and a linear decoder to the vocabulary,
// with the hidden state carried from one window to the next.
class LanguageModel {
 public:
  LanguageModel(const GpuContext& gpu, DeviceParameters& params, const models::LstmSpec& spec, std::int64_t batch);

  // tokens [sequence, batch] on the device -> scores [sequence * batch, vocabulary].
  float* forward(const std::int64_t* tokens);
  void backward(float* grad_scores);
  // Zero hidden and cell state, for the start of a pass over the text.
  void reset_state();

 private:
  const GpuContext* gpu_;
  models::LstmSpec spec_;
  std::int64_t batch_;
  Embedding embedding_;
  std::vector<LstmLayer> layers_;
  Linear decoder_;
  DeviceArray<float> h_, c_;  // [layers, batch, hidden]
};

}  // namespace dlcbench::cuda
