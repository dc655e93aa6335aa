#include "backends/reference/activations.h"

#include <cmath>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {

void activate(models::Activation kind, float* values, std::int64_t n) {
  if (kind == models::Activation::kRelu) {
#pragma omp parallel for simd if (n > kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) values[i] = values[i] > 0.0f ? values[i] : 0.0f;
  } else {
#pragma omp parallel for if (n > kParallelGrainTranscendental)
    for (std::int64_t i = 0; i < n; ++i) values[i] = 1.0f / (1.0f + std::exp(-values[i]));
  }
}

void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n) {
  if (kind == models::Activation::kRelu) {
    // Zero where the unit was off, as PyTorch's threshold_backward does.
#pragma omp parallel for simd if (n > kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) grad[i] = activated[i] > 0.0f ? grad[i] : 0.0f;
  } else {
    // sigmoid' = s (1 - s)
#pragma omp parallel for simd if (n > kParallelGrain)
    for (std::int64_t i = 0; i < n; ++i) grad[i] *= activated[i] * (1.0f - activated[i]);
  }
}

}  // namespace dlcbench::reference
