// Batch normalisation in training mode on cuDNN, as the reference engine's
// BatchNorm2d (PyTorch's in training): per channel, the batch mean and
// biased variance over N, H and W, y = weight (x - mean) / sqrt(var + 1e-5)
// + bias. cuDNN insists on running averages; they are kept (PyTorch's
// momentum 0.1) but never read, as only training is timed.
#pragma once

#include <string>

#include "backends/cuda/descriptors.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

class BatchNorm2d {
 public:
  // Takes name.weight and name.bias, [C] each.
  BatchNorm2d(const GpuContext& gpu, DeviceParameters& params, const std::string& name, ImageShape shape);

  // x must stay unchanged until backward().
  float* forward(const float* x);
  // dy -> the parameters' gradients and dx (its own array).
  float* backward(const float* dy);
  float* output() const { return y_.data(); }

 private:
  const GpuContext* gpu_;
  ImageShape shape_;
  DeviceTensor weight_, bias_;
  TensorDescriptor x_desc_;
  TensorDescriptor channel_desc_;  // 1xCx1x1, derived by cuDNN
  DeviceArray<float> y_, dx_, saved_mean_, saved_inv_std_, running_mean_, running_var_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::cuda
