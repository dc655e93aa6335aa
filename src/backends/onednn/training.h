// What trains the network besides its layers, written here as PyTorch
// defines it: softmax cross-entropy, gradient-norm clipping and SGD with
// momentum.
#pragma once

#include <cstdint>
#include <deque>

#include "backends/onednn/tensor.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::onednn {

// scores.value [rows, classes] row-major. Returns the mean over the rows of
// -log softmax(row)[label] (log-softmax computed stably) and writes its
// gradient, (softmax - one-hot) / rows, to scores.gradient.
double softmax_cross_entropy(const Activation& scores, const std::int64_t* labels);

// torch.nn.utils.clip_grad_norm_: when the L2 norm of all gradients together
// exceeds max_norm, scales them by max_norm / (norm + 1e-6).
void clip_gradient_norm(std::deque<Parameter>& parameters, double max_norm);

// torch.optim.SGD without weight decay, dampening or Nesterov: the momentum
// buffer is the gradient on the first step, then momentum * buffer +
// gradient; the parameter moves by -learning_rate * buffer (the gradient
// itself without momentum).
class Sgd {
 public:
  explicit Sgd(const models::SgdSpec& spec) : learning_rate_(static_cast<float>(spec.learning_rate)),
                                              momentum_(static_cast<float>(spec.momentum)) {}
  void step(std::deque<Parameter>& parameters);
  void restart() { first_step_ = true; }  // new weights: the buffers start again

 private:
  float learning_rate_, momentum_;
  bool first_step_ = true;
};

}  // namespace dlcbench::onednn
