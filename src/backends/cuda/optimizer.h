// The optimiser step on the device, as the reference engine's Sgd and
// clip_grad_norm (torch.optim.SGD and torch.nn.utils.clip_grad_norm_): one
// kernel over all parameters for the update, two for the clipping, which
// reads the norm on the device so the step never waits for the host.
#pragma once

#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::cuda {

class Optimizer {
 public:
  explicit Optimizer(const models::SgdSpec& spec);
  // Clips the gradients when the spec says so, then updates the values.
  void step(DeviceParameters& params, cudaStream_t stream);

 private:
  models::SgdSpec spec_;
  DeviceArray<double> sum_of_squares_;
};

}  // namespace dlcbench::cuda
