// The optimiser step and gradient clipping, as torch.optim.SGD (no weight
// decay, dampening or Nesterov) and torch.nn.utils.clip_grad_norm_.
#pragma once

#include "backends/reference/tensor.h"

namespace dlcbench::reference {

struct Sgd {
  double learning_rate = 0.01;
  double momentum = 0.0;

  // With momentum: v = g at a parameter's first step, then v = momentum v + g;
  // p -= lr v. Without: p -= lr g.
  void step(ParameterList& params) const;
};

// Scales all gradients by max_norm / (norm + 1e-6) when that is below 1,
// norm being the L2 norm of all gradients together.
void clip_grad_norm(ParameterList& params, double max_norm);

}  // namespace dlcbench::reference
