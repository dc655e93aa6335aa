// One layer of PyTorch's LSTM over a window of `steps` time steps:
//   gates = x W_ih^T + b_ih + h W_hh^T + b_hh, split into i, f, g, o
//   i, f, o = sigmoid, g = tanh, c' = f c + i g, h' = o tanh(c').
// The input projection of all steps is one GEMM; only h W_hh^T has to go
// step by step. Backward runs through time over the window (truncated
// back-propagation: the state the window started from is a constant).
#pragma once

#include <cstdint>
#include <vector>

#include "backends/reference/tensor.h"

namespace dlcbench::reference {

class LstmLayer {
 public:
  // Adds lstm.weight_ih_l<k> [4H, in], lstm.weight_hh_l<k> [4H, H],
  // lstm.bias_ih_l<k> and lstm.bias_hh_l<k> [4H].
  LstmLayer(ParameterList& params, int index, std::int64_t input_size, std::int64_t hidden, std::int64_t steps,
            std::int64_t batch, bool input_gradient);

  // x [steps * batch, in], time-major -> outputs h [steps * batch, H]. h and
  // c [batch, H] hold the state to start from and receive the final one.
  // x must stay unchanged until backward().
  float* forward(const float* x, float* h, float* c);
  // dy [steps * batch, H] -> parameter gradients and dx [steps * batch, in]
  // (nullptr without input_gradient). The final state gets no gradient: the
  // next window starts from it as a constant.
  float* backward(const float* dy);

 private:
  std::int64_t in_, hidden_, steps_, batch_;
  Parameter* w_ih_;
  Parameter* w_hh_;
  Parameter* b_ih_;
  Parameter* b_hh_;
  std::vector<float> bias_;   // b_ih + b_hh, added once to the input projection
  Tensor gates_;              // [steps * batch, 4H], after their non-linearities
  Tensor h_, c_;              // [(steps + 1) * batch, H]: the starting state, then each step's
  Tensor tanh_c_;             // [steps * batch, H]
  Tensor grad_gates_;         // [steps * batch, 4H], before the non-linearities
  Tensor grad_h_, grad_c_;    // [batch, H], flowing back from step t to step t - 1
  Tensor dx_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::reference
