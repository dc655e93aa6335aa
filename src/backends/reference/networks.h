// The networks of src/workloads/models built from the reference engine's
// layers, for a fixed batch size: every buffer a training step needs is
// allocated here, none during the step.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/reference/embedding.h"
#include "backends/reference/linear.h"
#include "backends/reference/lstm.h"
#include "backends/reference/tensor.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::reference {

// An image or feature classifier: examples in, class scores out.
class ClassifierNetwork {
 public:
  virtual ~ClassifierNetwork() = default;
  // examples [batch, ...] as the data set stores them (images [N, C, H, W])
  // -> scores [batch, classes]. The examples must stay unchanged until
  // backward().
  virtual float* forward(const float* examples) = 0;
  // The gradient of the loss with respect to the scores -> the gradients of
  // all parameters. May overwrite grad_scores.
  virtual void backward(float* grad_scores) = 0;

  ParameterList parameters;
};

std::unique_ptr<ClassifierNetwork> make_classifier(const models::ModelSpec& spec, std::int64_t batch);

// Embedding, stacked LSTM layers and a linear decoder to the vocabulary,
// with the hidden state carried from one window to the next.
class LanguageModel {
 public:
  LanguageModel(const models::LstmSpec& spec, std::int64_t batch);

  // tokens [sequence, batch] -> scores [sequence * batch, vocabulary].
  float* forward(const std::int64_t* tokens);
  void backward(float* grad_scores);
  // Zero hidden and cell state, for the start of a pass over the text.
  void reset_state();

  ParameterList parameters;

 private:
  models::LstmSpec spec_;
  std::int64_t batch_;
  Embedding embedding_;
  std::vector<LstmLayer> layers_;
  Linear decoder_;
  Tensor h_, c_;  // [layers, batch, hidden]
};

}  // namespace dlcbench::reference
