// A fully connected layer, y = x W^T + b, on cuBLAS: x [rows, in],
// W [out, in], y [rows, out], row-major as PyTorch's nn.Linear.
#pragma once

#include <cstdint>
#include <string>

#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

class Linear {
 public:
  // Takes name.weight [out, in] and name.bias [out].
  Linear(const GpuContext& gpu, DeviceParameters& params, const std::string& name, std::int64_t in, std::int64_t out,
         std::int64_t rows, bool input_gradient);

  // x must stay unchanged until backward().
  float* forward(const float* x);
  // dy [rows, out] -> the parameters' gradients, and dx [rows, in] (nullptr
  // without input_gradient).
  float* backward(const float* dy);
  float* output() const { return y_.data(); }

 private:
  const GpuContext* gpu_;
  std::int64_t in_, out_, rows_;
  DeviceTensor weight_, bias_;
  DeviceArray<float> y_, dx_, ones_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::cuda
