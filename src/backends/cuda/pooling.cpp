#include "backends/cuda/pooling.h"

#include <stdexcept>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"

namespace dlcbench::cuda {
namespace {

// Average pooling over a window without padding counts the whole window,
// which is AvgPool2d's divisor; deterministic max pooling sends each
// output's gradient to one winner, as PyTorch does.
cudnnPoolingMode_t mode_of(models::PoolKind kind) {
  return kind == models::PoolKind::kMax ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
}

}  // namespace

Pool2d::Pool2d(const GpuContext& gpu, models::PoolKind kind, ImageShape in, std::int64_t window_h,
               std::int64_t window_w, std::int64_t stride)
    : gpu_(&gpu),
      in_(in),
      out_{in.n, in.c, (in.h - window_h) / stride + 1, (in.w - window_w) / stride + 1},
      pool_desc_(mode_of(kind), window_h, window_w, stride),
      x_desc_(in),
      y_desc_(out_),
      y_(static_cast<std::size_t>(out_.numel())),
      dx_(static_cast<std::size_t>(in.numel())) {
  int n = 0, c = 0, h = 0, w = 0;
  DLCBENCH_CUDNN(cudnnGetPooling2dForwardOutputDim(pool_desc_.get(), x_desc_.get(), &n, &c, &h, &w));
  if (n != out_.n || c != out_.c || h != out_.h || w != out_.w)
    throw std::logic_error(fmt::format("cuDNN pools to {}x{}x{}x{}, PyTorch to {}x{}x{}x{}", n, c, h, w, out_.n,
                                       out_.c, out_.h, out_.w));
}

float* Pool2d::forward(const float* x) {
  x_ = x;
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUDNN(cudnnPoolingForward(gpu_->cudnn(), pool_desc_.get(), &one, x_desc_.get(), x, &zero, y_desc_.get(),
                                     y_.data()));
  return y_.data();
}

float* Pool2d::backward(const float* dy) {
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUDNN(cudnnPoolingBackward(gpu_->cudnn(), pool_desc_.get(), &one, y_desc_.get(), y_.data(), y_desc_.get(),
                                      dy, x_desc_.get(), x_, &zero, x_desc_.get(), dx_.data()));
  return dx_.data();
}

}  // namespace dlcbench::cuda
