#include "backends/reference/sgd.h"

#include <cmath>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {

void Sgd::step(ParameterList& params) const {
  const auto lr = static_cast<float>(learning_rate);
  const auto mu = static_cast<float>(momentum);
  for (Parameter& p : params.items) {
    float* value = p.value.data();
    const float* grad = p.grad.data();
    float* velocity = p.velocity.data();
    const std::int64_t n = p.value.numel();
    if (mu == 0.0f) {
#pragma omp parallel for simd if (n > kParallelGrain)
      for (std::int64_t i = 0; i < n; ++i) value[i] -= lr * grad[i];
    } else if (!p.velocity_started) {
#pragma omp parallel for simd if (n > kParallelGrain)
      for (std::int64_t i = 0; i < n; ++i) {
        velocity[i] = grad[i];
        value[i] -= lr * grad[i];
      }
      p.velocity_started = true;
    } else {
#pragma omp parallel for simd if (n > kParallelGrain)
      for (std::int64_t i = 0; i < n; ++i) {
        velocity[i] = mu * velocity[i] + grad[i];
        value[i] -= lr * velocity[i];
      }
    }
  }
}

void clip_grad_norm(ParameterList& params, double max_norm) {
  double squares = 0;
  for (const Parameter& p : params.items) {
    const float* grad = p.grad.data();
    const std::int64_t n = p.grad.numel();
#pragma omp parallel for simd reduction(+ : squares) if (n > kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) squares += static_cast<double>(grad[i]) * grad[i];
  }
  const double coefficient = max_norm / (std::sqrt(squares) + 1e-6);
  if (coefficient >= 1) return;
  const auto scale = static_cast<float>(coefficient);
  for (Parameter& p : params.items) {
    float* grad = p.grad.data();
    const std::int64_t n = p.grad.numel();
#pragma omp parallel for simd if (n > kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) grad[i] *= scale;
  }
}

}  // namespace dlcbench::reference
