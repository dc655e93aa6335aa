// A 2-D convolution (square kernel, equal padding and stride both ways,
// optional bias) on cuDNN's convolution API, NCHW, FP32 on FMA units. The
// algorithms are chosen once at set-up by cuDNN's heuristics (the _v7
// queries): the first, in cuDNN's order of expected speed, that runs in FP32
// and needs at most kMaxWorkspaceBytes. The convolutions of a network share
// one workspace, allocated after all of them are built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/descriptors.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

class ConvWorkspace {
 public:
  static constexpr std::size_t kMaxWorkspaceBytes = std::size_t{256} << 20;
  // During set-up: the layers say what they need.
  void reserve(std::size_t bytes) { bytes_ = bytes > bytes_ ? bytes : bytes_; }
  // Once, after the last reserve().
  void allocate() { memory_ = DeviceMemory(bytes_); }
  void* data() const { return memory_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
  DeviceMemory memory_;
};

struct ConvOptions {
  std::int64_t out_channels = 0, kernel = 0, stride = 1, padding = 0;
  bool bias = true;
};

class Conv2d {
 public:
  // Takes name.weight [out, in, k, k] and, with a bias, name.bias [out].
  Conv2d(const GpuContext& gpu, DeviceParameters& params, const std::string& name, ImageShape in,
         const ConvOptions& options, ConvWorkspace& workspace, bool input_gradient);

  ImageShape output_shape() const { return out_; }
  // x [in] must stay unchanged until backward().
  float* forward(const float* x);
  // dy [out] -> the weights' (and bias's) gradients, and dx [in] (nullptr
  // without input_gradient).
  float* backward(const float* dy);
  float* output() const { return y_.data(); }

 private:
  const GpuContext* gpu_;
  ImageShape in_, out_;
  ConvWorkspace* workspace_;
  DeviceTensor weight_, bias_;
  bool has_bias_;
  TensorDescriptor x_desc_, y_desc_, bias_desc_;
  FilterDescriptor w_desc_;
  ConvolutionDescriptor conv_desc_;
  cudnnConvolutionFwdAlgo_t forward_algo_{};
  cudnnConvolutionBwdDataAlgo_t data_algo_{};
  cudnnConvolutionBwdFilterAlgo_t filter_algo_{};
  DeviceArray<float> y_, dx_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::cuda
