#include "backends/cuda/batch_norm.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels.h"

namespace dlcbench::cuda {
namespace {

constexpr double kEpsilon = 1e-5;         // PyTorch's default, as the reference engine
constexpr double kRunningAverage = 0.1;   // PyTorch's momentum for the (unused) running statistics
// Plain spatial mode: the persistent variant may overflow on some data and
// its kernels sum in another order.
constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

}  // namespace

BatchNorm2d::BatchNorm2d(const GpuContext& gpu, DeviceParameters& params, const std::string& name, ImageShape shape)
    : gpu_(&gpu),
      shape_(shape),
      weight_(params.take(name + ".weight", {shape.c})),
      bias_(params.take(name + ".bias", {shape.c})),
      x_desc_(shape),
      channel_desc_(ImageShape{1, shape.c, 1, 1}),
      y_(static_cast<std::size_t>(shape.numel())),
      dx_(static_cast<std::size_t>(shape.numel())),
      saved_mean_(static_cast<std::size_t>(shape.c)),
      saved_inv_std_(static_cast<std::size_t>(shape.c)),
      running_mean_(static_cast<std::size_t>(shape.c)),
      running_var_(static_cast<std::size_t>(shape.c)) {
  // What cuDNN wants for the per-channel tensors in this mode (1xCx1x1, the
  // same as set above; derived so cuDNN's own rule decides).
  DLCBENCH_CUDNN(cudnnDeriveBNTensorDescriptor(channel_desc_.get(), x_desc_.get(), kMode));
  kernels::fill(running_mean_.data(), shape.c, 0.0f, gpu.stream());
  kernels::fill(running_var_.data(), shape.c, 1.0f, gpu.stream());
}

float* BatchNorm2d::forward(const float* x) {
  x_ = x;
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUDNN(cudnnBatchNormalizationForwardTraining(
      gpu_->cudnn(), kMode, &one, &zero, x_desc_.get(), x, x_desc_.get(), y_.data(), channel_desc_.get(),
      weight_.value, bias_.value, kRunningAverage, running_mean_.data(), running_var_.data(), kEpsilon,
      saved_mean_.data(), saved_inv_std_.data()));
  return y_.data();
}

float* BatchNorm2d::backward(const float* dy) {
  const float one = 1.0f, zero = 0.0f;
  // Gradients written, not accumulated: beta 0 for the data and the parameters.
  DLCBENCH_CUDNN(cudnnBatchNormalizationBackward(gpu_->cudnn(), kMode, &one, &zero, &one, &zero, x_desc_.get(), x_,
                                                 x_desc_.get(), dy, x_desc_.get(), dx_.data(), channel_desc_.get(),
                                                 weight_.value, weight_.grad, bias_.grad, kEpsilon, saved_mean_.data(),
                                                 saved_inv_std_.data()));
  return dx_.data();
}

}  // namespace dlcbench::cuda
