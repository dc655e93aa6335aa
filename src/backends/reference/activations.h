// Element-wise activations, in place: forward replaces pre-activations by
// activations, backward turns the gradient of the activations into the
// gradient of the pre-activations. Both need only the activations, so no
// other copy is kept.
#pragma once

#include <cstdint>

#include "workloads/models/model_spec.h"

namespace dlcbench::reference {

void activate(models::Activation kind, float* values, std::int64_t n);
// grad *= derivative at the activation values `activated`.
void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n);

}  // namespace dlcbench::reference
