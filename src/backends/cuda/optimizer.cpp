#include "backends/cuda/optimizer.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels.h"

namespace dlcbench::cuda {

Optimizer::Optimizer(const models::SgdSpec& spec) : spec_(spec), sum_of_squares_(1) {}

void Optimizer::step(DeviceParameters& params, cudaStream_t stream) {
  if (spec_.clip_grad_norm > 0) {
    DLCBENCH_CUDA(cudaMemsetAsync(sum_of_squares_.data(), 0, sizeof(double), stream));
    kernels::add_sum_of_squares(params.grads(), params.size(), sum_of_squares_.data(), stream);
    kernels::clip_by_norm(params.grads(), params.size(), sum_of_squares_.data(), spec_.clip_grad_norm, stream);
  }
  const bool first = !params.momentum_started;
  kernels::sgd_step(params.values(), params.velocity(), params.grads(), params.size(),
                    static_cast<float>(spec_.learning_rate), static_cast<float>(spec_.momentum), first, stream);
  params.momentum_started = true;
}

}  // namespace dlcbench::cuda
