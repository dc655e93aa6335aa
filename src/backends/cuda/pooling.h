// Max and average pooling on cuDNN, no padding and floor rounding, as
// PyTorch's MaxPool2d and AvgPool2d (which divides by the whole window when
// there is no padding); with a window the size of the image it is the
// global average pooling of ResNet.
#pragma once

#include <cstdint>

#include "backends/cuda/descriptors.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/gpu_context.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::cuda {

class Pool2d {
 public:
  Pool2d(const GpuContext& gpu, models::PoolKind kind, ImageShape in, std::int64_t window_h, std::int64_t window_w,
         std::int64_t stride);

  ImageShape output_shape() const { return out_; }
  // x must stay unchanged until backward() (max pooling finds its winners
  // again from x and y).
  float* forward(const float* x);
  float* backward(const float* dy);

 private:
  const GpuContext* gpu_;
  ImageShape in_, out_;
  PoolingDescriptor pool_desc_;
  TensorDescriptor x_desc_, y_desc_;
  DeviceArray<float> y_, dx_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::cuda
