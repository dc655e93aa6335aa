#include "backends/cuda/linear.h"

#include "backends/cuda/blas.h"
#include "backends/cuda/kernels.h"

namespace dlcbench::cuda {

Linear::Linear(const GpuContext& gpu, DeviceParameters& params, const std::string& name, std::int64_t in,
               std::int64_t out, std::int64_t rows, bool input_gradient)
    : gpu_(&gpu),
      in_(in),
      out_(out),
      rows_(rows),
      weight_(params.take(name + ".weight", {out, in})),
      bias_(params.take(name + ".bias", {out})),
      y_(static_cast<std::size_t>(rows * out)),
      dx_(input_gradient ? static_cast<std::size_t>(rows * in) : 0),
      ones_(static_cast<std::size_t>(rows)) {
  kernels::fill(ones_.data(), rows, 1.0f, gpu.stream());
}

float* Linear::forward(const float* x) {
  x_ = x;
  // The bias in every row, then y += x W^T (beta 1), as the reference engine.
  kernels::broadcast_rows(bias_.value, rows_, out_, y_.data(), gpu_->stream());
  gemm(*gpu_, false, true, rows_, out_, in_, 1.0f, x, weight_.value, 1.0f, y_.data());
  return y_.data();
}

float* Linear::backward(const float* dy) {
  // dW = dy^T x, db = the column sums of dy, dx = dy W.
  gemm(*gpu_, true, false, out_, in_, rows_, 1.0f, dy, x_, 0.0f, weight_.grad);
  column_sums(*gpu_, dy, rows_, out_, ones_.data(), bias_.grad);
  if (dx_.size() == 0) return nullptr;
  gemm(*gpu_, false, false, rows_, in_, out_, 1.0f, dy, weight_.value, 0.0f, dx_.data());
  return dx_.data();
}

}  // namespace dlcbench::cuda
