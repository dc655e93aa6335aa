#include "backends/cuda/convolution.h"

#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "core/errors.h"

namespace dlcbench::cuda {
namespace {

ImageShape output_of(ImageShape in, const ConvOptions& o) {
  return {in.n, o.out_channels, (in.h + 2 * o.padding - o.kernel) / o.stride + 1,
          (in.w + 2 * o.padding - o.kernel) / o.stride + 1};
}

// The descriptor asks for FMA math, which is what runs whatever an entry
// reports; entries that report FP32 math (FMA, or default for FP32 data
// without TF32) are preferred all the same, as PyTorch expects them.
bool reports_fp32_math(cudnnMathType_t math) { return math == CUDNN_FMA_MATH || math == CUDNN_DEFAULT_MATH; }

// The first of cuDNN's heuristic ranking that can run within the workspace
// limit, preferring FP32 math, with its workspace reserved. An entry is kept
// only once cuDNN sizes its workspace for these descriptors: a ranked entry
// can still be one they do not support, and then the next one is tried, as
// PyTorch does. `what` names the pass in the error when none can run.
template <class Perf, class WorkspaceSize>
auto choose_algorithm(const std::vector<Perf>& ranked, int returned, WorkspaceSize workspace_size,
                      ConvWorkspace& workspace, const char* what) {
  for (const bool need_fp32_report : {true, false})
    for (int i = 0; i < returned; ++i) {
      const Perf& p = ranked[static_cast<std::size_t>(i)];
      if (p.status != CUDNN_STATUS_SUCCESS || (need_fp32_report && !reports_fp32_math(p.mathType))) continue;
      std::size_t bytes = 0;
      if (workspace_size(p.algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > ConvWorkspace::kMaxWorkspaceBytes) continue;
      workspace.reserve(bytes);
      return p.algo;
    }
  throw GpuError(fmt::format("cuDNN offers no algorithm for this convolution's {} within {} MiB of workspace", what,
                             ConvWorkspace::kMaxWorkspaceBytes >> 20));
}

}  // namespace

Conv2d::Conv2d(const GpuContext& gpu, DeviceParameters& params, const std::string& name, ImageShape in,
               const ConvOptions& o, ConvWorkspace& workspace, bool input_gradient)
    : gpu_(&gpu),
      in_(in),
      out_(output_of(in, o)),
      workspace_(&workspace),
      weight_(params.take(name + ".weight", {o.out_channels, in.c, o.kernel, o.kernel})),
      bias_(o.bias ? params.take(name + ".bias", {o.out_channels}) : DeviceTensor{}),
      has_bias_(o.bias),
      x_desc_(in),
      y_desc_(out_),
      bias_desc_(ImageShape{1, o.out_channels, 1, 1}),
      w_desc_(o.out_channels, in.c, o.kernel),
      conv_desc_(o.padding, o.stride),
      y_(static_cast<std::size_t>(out_.numel())),
      dx_(input_gradient ? static_cast<std::size_t>(in.numel()) : 0) {
  // cuDNN's own idea of the output shape must be ours (PyTorch's).
  int n = 0, c = 0, h = 0, w = 0;
  DLCBENCH_CUDNN(cudnnGetConvolution2dForwardOutputDim(conv_desc_.get(), x_desc_.get(), w_desc_.get(), &n, &c, &h, &w));
  if (n != out_.n || c != out_.c || h != out_.h || w != out_.w)
    throw std::logic_error(fmt::format("{}: cuDNN computes an output of {}x{}x{}x{}, PyTorch {}x{}x{}x{}", name, n, c, h,
                                       w, out_.n, out_.c, out_.h, out_.w));

  cudnnHandle_t handle = gpu.cudnn();
  int count = 0, returned = 0;

  DLCBENCH_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> forward(static_cast<std::size_t>(count));
  DLCBENCH_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(),
                                                        y_desc_.get(), count, &returned, forward.data()));
  forward_algo_ = choose_algorithm(
      forward, returned,
      [&](cudnnConvolutionFwdAlgo_t algo, std::size_t* bytes) {
        return cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(),
                                                       y_desc_.get(), algo, bytes);
      },
      workspace, "forward pass");

  DLCBENCH_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(static_cast<std::size_t>(count));
  DLCBENCH_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                               w_desc_.get(), count, &returned, filter.data()));
  filter_algo_ = choose_algorithm(
      filter, returned,
      [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t* bytes) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                              w_desc_.get(), algo, bytes);
      },
      workspace, "weight gradient");

  if (!input_gradient) return;
  DLCBENCH_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(static_cast<std::size_t>(count));
  DLCBENCH_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                             x_desc_.get(), count, &returned, data.data()));
  data_algo_ = choose_algorithm(
      data, returned,
      [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                            x_desc_.get(), algo, bytes);
      },
      workspace, "input gradient");
}

float* Conv2d::forward(const float* x) {
  x_ = x;
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUDNN(cudnnConvolutionForward(gpu_->cudnn(), &one, x_desc_.get(), x, w_desc_.get(), weight_.value,
                                         conv_desc_.get(), forward_algo_, workspace_->data(), workspace_->bytes(),
                                         &zero, y_desc_.get(), y_.data()));
  // y += bias, broadcast over N, H and W.
  if (has_bias_)
    DLCBENCH_CUDNN(cudnnAddTensor(gpu_->cudnn(), &one, bias_desc_.get(), bias_.value, &one, y_desc_.get(), y_.data()));
  return y_.data();
}

float* Conv2d::backward(const float* dy) {
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUDNN(cudnnConvolutionBackwardFilter(gpu_->cudnn(), &one, x_desc_.get(), x_, y_desc_.get(), dy,
                                                conv_desc_.get(), filter_algo_, workspace_->data(),
                                                workspace_->bytes(), &zero, w_desc_.get(), weight_.grad));
  if (has_bias_)
    DLCBENCH_CUDNN(
        cudnnConvolutionBackwardBias(gpu_->cudnn(), &one, y_desc_.get(), dy, &zero, bias_desc_.get(), bias_.grad));
  if (dx_.size() == 0) return nullptr;
  DLCBENCH_CUDNN(cudnnConvolutionBackwardData(gpu_->cudnn(), &one, w_desc_.get(), weight_.value, y_desc_.get(), dy,
                                              conv_desc_.get(), data_algo_, workspace_->data(), workspace_->bytes(),
                                              &zero, x_desc_.get(), dx_.data()));
  return dx_.data();
}

}  // namespace dlcbench::cuda
