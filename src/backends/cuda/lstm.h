// One layer of PyTorch's LSTM over a window of `steps` time steps, as the
// reference engine's LstmLayer:
//   gates = x W_ih^T + b_ih + h W_hh^T + b_hh, split into i, f, g, o
//   i, f, o = sigmoid, g = tanh, c' = f c + i g, h' = o tanh(c').
// The input projection of all steps is one cuBLAS GEMM; h W_hh^T is one GEMM
// per step, followed by one element-wise kernel for the cell. Backward runs
// through the window in reverse (truncated back-propagation: the state the
// window started from is a constant), and the weight gradients of all steps
// are one GEMM each.
#pragma once

#include <cstdint>

#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

class LstmLayer {
 public:
  // Takes lstm.weight_ih_l<index> [4H, in], lstm.weight_hh_l<index> [4H, H],
  // lstm.bias_ih_l<index> and lstm.bias_hh_l<index> [4H].
  LstmLayer(const GpuContext& gpu, DeviceParameters& params, int index, std::int64_t input_size, std::int64_t hidden,
            std::int64_t steps, std::int64_t batch, bool input_gradient);

  // x [steps * batch, in], time-major -> h of every step [steps * batch, H].
  // h and c [batch, H] (device) hold the state to start from and receive the
  // final one. x must stay unchanged until backward().
  float* forward(const float* x, float* h, float* c);
  // dy [steps * batch, H] -> the parameters' gradients and dx
  // [steps * batch, in] (nullptr without input_gradient). The final state
  // gets no gradient: the next window starts from it as a constant.
  float* backward(const float* dy);

 private:
  const GpuContext* gpu_;
  std::int64_t in_, hidden_, steps_, batch_;
  DeviceTensor w_ih_, w_hh_, b_ih_, b_hh_;
  DeviceArray<float> bias_;          // b_ih + b_hh, added once to the input projection
  DeviceArray<float> gates_;         // [steps * batch, 4H], after their non-linearities
  DeviceArray<float> h_, c_;         // [(steps + 1) * batch, H]: the starting state, then each step's
  DeviceArray<float> tanh_c_;        // [steps * batch, H]
  DeviceArray<float> grad_gates_;    // [steps * batch, 4H], of the pre-activations
  DeviceArray<float> grad_h_, grad_c_;  // [batch, H], flowing back from step t to step t - 1
  DeviceArray<float> dx_, ones_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::cuda
