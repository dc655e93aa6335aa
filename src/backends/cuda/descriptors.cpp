#include "backends/cuda/descriptors.h"

#include <limits>
#include <stdexcept>

#include "backends/cuda/cuda_check.h"

namespace dlcbench::cuda {

int cudnn_dim(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<int>::max()) throw std::length_error("a tensor dimension does not fit cuDNN's int");
  return static_cast<int>(n);
}

TensorDescriptor::TensorDescriptor(ImageShape s) {
  cudnnTensorDescriptor_t d = nullptr;
  DLCBENCH_CUDNN(cudnnCreateTensorDescriptor(&d));
  desc_.reset(d);
  DLCBENCH_CUDNN(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, cudnn_dim(s.n), cudnn_dim(s.c),
                                            cudnn_dim(s.h), cudnn_dim(s.w)));
}

FilterDescriptor::FilterDescriptor(std::int64_t out_channels, std::int64_t in_channels, std::int64_t kernel) {
  cudnnFilterDescriptor_t d = nullptr;
  DLCBENCH_CUDNN(cudnnCreateFilterDescriptor(&d));
  desc_.reset(d);
  DLCBENCH_CUDNN(cudnnSetFilter4dDescriptor(d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, cudnn_dim(out_channels),
                                            cudnn_dim(in_channels), cudnn_dim(kernel), cudnn_dim(kernel)));
}

ConvolutionDescriptor::ConvolutionDescriptor(std::int64_t padding, std::int64_t stride) {
  cudnnConvolutionDescriptor_t d = nullptr;
  DLCBENCH_CUDNN(cudnnCreateConvolutionDescriptor(&d));
  desc_.reset(d);
  DLCBENCH_CUDNN(cudnnSetConvolution2dDescriptor(d, cudnn_dim(padding), cudnn_dim(padding), cudnn_dim(stride),
                                                 cudnn_dim(stride), /*dilation_h=*/1, /*dilation_w=*/1,
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DLCBENCH_CUDNN(cudnnSetConvolutionMathType(d, CUDNN_FMA_MATH));
}

PoolingDescriptor::PoolingDescriptor(cudnnPoolingMode_t mode, std::int64_t window_h, std::int64_t window_w,
                                     std::int64_t stride) {
  cudnnPoolingDescriptor_t d = nullptr;
  DLCBENCH_CUDNN(cudnnCreatePoolingDescriptor(&d));
  desc_.reset(d);
  DLCBENCH_CUDNN(cudnnSetPooling2dDescriptor(d, mode, CUDNN_NOT_PROPAGATE_NAN, cudnn_dim(window_h), cudnn_dim(window_w),
                                             /*verticalPadding=*/0, /*horizontalPadding=*/0, cudnn_dim(stride),
                                             cudnn_dim(stride)));
}

}  // namespace dlcbench::cuda
