#include "backends/cuda/lstm.h"

#include <fmt/format.h>

#include "backends/cuda/blas.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels.h"

namespace dlcbench::cuda {
namespace {

std::size_t size(std::int64_t n) { return static_cast<std::size_t>(n); }

}  // namespace

LstmLayer::LstmLayer(const GpuContext& gpu, DeviceParameters& params, int index, std::int64_t input_size,
                     std::int64_t hidden, std::int64_t steps, std::int64_t batch, bool input_gradient)
    : gpu_(&gpu),
      in_(input_size),
      hidden_(hidden),
      steps_(steps),
      batch_(batch),
      w_ih_(params.take(fmt::format("lstm.weight_ih_l{}", index), {4 * hidden, input_size})),
      w_hh_(params.take(fmt::format("lstm.weight_hh_l{}", index), {4 * hidden, hidden})),
      b_ih_(params.take(fmt::format("lstm.bias_ih_l{}", index), {4 * hidden})),
      b_hh_(params.take(fmt::format("lstm.bias_hh_l{}", index), {4 * hidden})),
      bias_(size(4 * hidden)),
      gates_(size(steps * batch * 4 * hidden)),
      h_(size((steps + 1) * batch * hidden)),
      c_(size((steps + 1) * batch * hidden)),
      tanh_c_(size(steps * batch * hidden)),
      grad_gates_(size(steps * batch * 4 * hidden)),
      grad_h_(size(batch * hidden)),
      grad_c_(size(batch * hidden)),
      dx_(input_gradient ? size(steps * batch * input_size) : 0),
      ones_(size(steps * batch)) {
  kernels::fill(ones_.data(), steps * batch, 1.0f, gpu.stream());
}

float* LstmLayer::forward(const float* x, float* h, float* c) {
  x_ = x;
  cudaStream_t stream = gpu_->stream();
  const std::int64_t H = hidden_, rows = steps_ * batch_, state = batch_ * H;
  const std::size_t state_bytes = size(state) * sizeof(float);
  // gates = (b_ih + b_hh) in every row, then += x W_ih^T for all steps at once.
  kernels::add(b_ih_.value, b_hh_.value, 4 * H, bias_.data(), stream);
  kernels::broadcast_rows(bias_.data(), rows, 4 * H, gates_.data(), stream);
  gemm(*gpu_, false, true, rows, 4 * H, in_, 1.0f, x, w_ih_.value, 1.0f, gates_.data());
  DLCBENCH_CUDA(cudaMemcpyAsync(h_.data(), h, state_bytes, cudaMemcpyDeviceToDevice, stream));
  DLCBENCH_CUDA(cudaMemcpyAsync(c_.data(), c, state_bytes, cudaMemcpyDeviceToDevice, stream));
  for (std::int64_t t = 0; t < steps_; ++t) {
    float* g = gates_.data() + t * batch_ * 4 * H;
    const float* h_prev = h_.data() + t * state;
    // gates_t += h_{t-1} W_hh^T, then the cell.
    gemm(*gpu_, false, true, batch_, 4 * H, H, 1.0f, h_prev, w_hh_.value, 1.0f, g);
    kernels::lstm_forward_step(g, c_.data() + t * state, c_.data() + (t + 1) * state, tanh_c_.data() + t * state,
                               h_.data() + (t + 1) * state, batch_, H, stream);
  }
  DLCBENCH_CUDA(cudaMemcpyAsync(h, h_.data() + steps_ * state, state_bytes, cudaMemcpyDeviceToDevice, stream));
  DLCBENCH_CUDA(cudaMemcpyAsync(c, c_.data() + steps_ * state, state_bytes, cudaMemcpyDeviceToDevice, stream));
  return h_.data() + state;
}

float* LstmLayer::backward(const float* dy) {
  cudaStream_t stream = gpu_->stream();
  const std::int64_t H = hidden_, rows = steps_ * batch_, state = batch_ * H;
  float* dh_next = grad_h_.data();
  float* dc_next = grad_c_.data();
  DLCBENCH_CUDA(cudaMemsetAsync(dh_next, 0, size(state) * sizeof(float), stream));
  DLCBENCH_CUDA(cudaMemsetAsync(dc_next, 0, size(state) * sizeof(float), stream));
  for (std::int64_t t = steps_ - 1; t >= 0; --t) {
    float* dg = grad_gates_.data() + t * batch_ * 4 * H;
    kernels::lstm_backward_step(gates_.data() + t * batch_ * 4 * H, c_.data() + t * state,
                                tanh_c_.data() + t * state, dy + t * state, dh_next, dc_next, dg, batch_, H, stream);
    // The gradient reaching h_{t-1} = dgates_t W_hh; the window's starting
    // state needs none.
    if (t > 0) gemm(*gpu_, false, false, batch_, H, 4 * H, 1.0f, dg, w_hh_.value, 0.0f, dh_next);
  }
  // Summed over all steps at once: dW_hh = dgates^T h_{t-1}, dW_ih = dgates^T x.
  const float* dgates = grad_gates_.data();
  gemm(*gpu_, true, false, 4 * H, H, rows, 1.0f, dgates, h_.data(), 0.0f, w_hh_.grad);
  gemm(*gpu_, true, false, 4 * H, in_, rows, 1.0f, dgates, x_, 0.0f, w_ih_.grad);
  column_sums(*gpu_, dgates, rows, 4 * H, ones_.data(), b_ih_.grad);
  // Both biases enter the gates the same way.
  DLCBENCH_CUDA(cudaMemcpyAsync(b_hh_.grad, b_ih_.grad, size(4 * H) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  if (dx_.size() == 0) return nullptr;
  gemm(*gpu_, false, false, rows, in_, 4 * H, 1.0f, dgates, w_ih_.value, 0.0f, dx_.data());
  return dx_.data();
}

}  // namespace dlcbench::cuda
