// The per-element arithmetic of the cuda back end's kernels (kernels.cu),
// written once for both compilers: under nvcc these are __host__ __device__
// functions the kernels call, under g++ plain inline functions that the unit
// tests (tests/unit/cuda_kernel_math_test.cpp) check on the CPU against the
// formulas and finite differences. So everything the GPU computes besides
// cuBLAS and cuDNN is tested on machines without a GPU.
//
// The formulas are the reference engine's (src/backends/reference), which
// are PyTorch's: the same order of operations in float, so the two engines
// differ only where the GPU's expf/tanhf differ in their last bit.
#pragma once

#include <math.h>  // expf, tanhf, sqrt: declared at global scope for both compilers

#include <cstdint>

#if defined(__CUDACC__)
#define DLCBENCH_HOST_DEVICE __host__ __device__
#else
#define DLCBENCH_HOST_DEVICE
#endif

namespace dlcbench::cuda::math {

DLCBENCH_HOST_DEVICE inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// Derivatives from the activated value, which is what the layers keep:
// sigmoid' = s (1 - s), tanh' = 1 - t^2.
DLCBENCH_HOST_DEVICE inline float sigmoid_derivative(float s) { return s * (1.0f - s); }
DLCBENCH_HOST_DEVICE inline float tanh_derivative(float t) { return 1.0f - t * t; }

DLCBENCH_HOST_DEVICE inline float relu(float x) { return x > 0.0f ? x : 0.0f; }
// Zero where the unit was off (activated value 0), as PyTorch's threshold_backward.
DLCBENCH_HOST_DEVICE inline float relu_backward(float activated, float grad) { return activated > 0.0f ? grad : 0.0f; }
DLCBENCH_HOST_DEVICE inline float sigmoid_backward(float activated, float grad) {
  return grad * sigmoid_derivative(activated);
}

// ---------------------------------------------------------------- LSTM cell
// PyTorch's gate order in the [4H] pre-activations: input, forget, cell, output.

struct LstmGates {
  float i, f, g, o;  // after their non-linearities: sigmoid, sigmoid, tanh, sigmoid
};

struct LstmCellOutput {
  LstmGates gates;
  float c;       // the new cell state
  float tanh_c;  // kept for backward
  float h;       // the new hidden state
};

// c' = f c + i g, h' = o tanh(c').
DLCBENCH_HOST_DEVICE inline LstmCellOutput lstm_cell_forward(float pre_i, float pre_f, float pre_g, float pre_o,
                                                            float c_prev) {
  LstmCellOutput out;
  out.gates = {sigmoid(pre_i), sigmoid(pre_f), tanhf(pre_g), sigmoid(pre_o)};
  out.c = out.gates.f * c_prev + out.gates.i * out.gates.g;
  out.tanh_c = tanhf(out.c);
  out.h = out.gates.o * out.tanh_c;
  return out;
}

struct LstmCellGradient {
  float d_pre_i, d_pre_f, d_pre_g, d_pre_o;  // of the gates' pre-activations
  float dc_prev;                             // flowing to the previous step's cell state
};

// dh: the gradient reaching h' (from the layer above and from the next step);
// dc: the gradient reaching c' from the next step.
DLCBENCH_HOST_DEVICE inline LstmCellGradient lstm_cell_backward(LstmGates gates, float c_prev, float tanh_c, float dh,
                                                               float dc) {
  const float dc_total = dh * gates.o * tanh_derivative(tanh_c) + dc;
  LstmCellGradient grad;
  grad.dc_prev = dc_total * gates.f;
  grad.d_pre_i = dc_total * gates.g * sigmoid_derivative(gates.i);
  grad.d_pre_f = dc_total * c_prev * sigmoid_derivative(gates.f);
  grad.d_pre_g = dc_total * gates.i * tanh_derivative(gates.g);
  grad.d_pre_o = dh * tanh_c * sigmoid_derivative(gates.o);
  return grad;
}

// ------------------------------------------------- softmax cross-entropy
// For one row of scores s with label y, over `rows` rows:
//   loss_row = log(sum_k exp(s_k - max)) - (s_y - max)
//   dloss/ds_k = (exp(s_k - max) / sum - [k == y]) / rows
// (the mean over rows). The kernel reduces max and sum over the row; these
// are the parts around the reductions.

DLCBENCH_HOST_DEVICE inline double xent_row_loss(float label_score, float max, double sum_exp) {
  return log(sum_exp) - static_cast<double>(label_score - max);
}

// inv_sum_per_row = float(1 / sum) * float(1 / rows), computed once per row.
DLCBENCH_HOST_DEVICE inline float xent_gradient(float score, float max, float inv_sum_per_row, bool is_label,
                                                float per_row) {
  const float g = expf(score - max) * inv_sum_per_row;
  return is_label ? g - per_row : g;
}

// -------------------------------------------------------------- optimiser
// torch.optim.SGD without weight decay, dampening or Nesterov: with momentum
// the buffer starts as the first gradient, then v = momentum v + g; p -= lr v.
// Without momentum, p -= lr g and the buffer is untouched.
DLCBENCH_HOST_DEVICE inline void sgd_update(float& value, float& velocity, float grad, float lr, float momentum,
                                            bool first_step) {
  if (momentum == 0.0f) {
    value -= lr * grad;
  } else if (first_step) {
    velocity = grad;
    value -= lr * grad;
  } else {
    velocity = momentum * velocity + grad;
    value -= lr * velocity;
  }
}

// torch.nn.utils.clip_grad_norm_: gradients are multiplied by
// max_norm / (norm + 1e-6) where that is below 1, norm being the L2 norm of
// all of them together; returns the factor (1: leave them).
DLCBENCH_HOST_DEVICE inline double clip_factor(double sum_of_squares, double max_norm) {
  const double coefficient = max_norm / (sqrt(sum_of_squares) + 1e-6);
  return coefficient < 1.0 ? coefficient : 1.0;
}

// -------------------------------------------------------- tensor indexing

// ResNet's option-A shortcut on NCHW tensors: element `out_index` of the
// output [N, out_channels, out_h, out_w] receives x[n, c, h * stride,
// w * stride] of the input [N, in_channels, in_h, in_w] for c < in_channels,
// and nothing (-1) in the zero-padded channels at the end. Distinct outputs
// map to distinct inputs, so backward can add without atomics.
struct ImageDims {
  std::int64_t channels, height, width;
};

DLCBENCH_HOST_DEVICE inline std::int64_t shortcut_source(std::int64_t out_index, ImageDims out, ImageDims in,
                                                        std::int64_t stride) {
  const std::int64_t w = out_index % out.width;
  const std::int64_t h = (out_index / out.width) % out.height;
  const std::int64_t c = (out_index / (out.width * out.height)) % out.channels;
  const std::int64_t n = out_index / (out.width * out.height * out.channels);
  if (c >= in.channels) return -1;
  return ((n * in.channels + c) * in.height + h * stride) * in.width + w * stride;
}

}  // namespace dlcbench::cuda::math
