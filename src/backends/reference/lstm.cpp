#include "backends/reference/lstm.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "backends/reference/gemm.h"
#include "backends/reference/parallel.h"

namespace dlcbench::reference {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

LstmLayer::LstmLayer(ParameterList& params, int index, std::int64_t input_size, std::int64_t hidden,
                     std::int64_t steps, std::int64_t batch, bool input_gradient)
    : in_(input_size),
      hidden_(hidden),
      steps_(steps),
      batch_(batch),
      w_ih_(&params.add(fmt::format("lstm.weight_ih_l{}", index), {4 * hidden, input_size})),
      w_hh_(&params.add(fmt::format("lstm.weight_hh_l{}", index), {4 * hidden, hidden})),
      b_ih_(&params.add(fmt::format("lstm.bias_ih_l{}", index), {4 * hidden})),
      b_hh_(&params.add(fmt::format("lstm.bias_hh_l{}", index), {4 * hidden})),
      bias_(static_cast<std::size_t>(4 * hidden)),
      gates_({steps * batch, 4 * hidden}),
      h_({(steps + 1) * batch, hidden}),
      c_({(steps + 1) * batch, hidden}),
      tanh_c_({steps * batch, hidden}),
      grad_gates_({steps * batch, 4 * hidden}),
      grad_h_({batch, hidden}),
      grad_c_({batch, hidden}) {
  if (input_gradient) dx_ = Tensor({steps * batch, input_size});
}

float* LstmLayer::forward(const float* x, float* h, float* c) {
  x_ = x;
  const std::int64_t H = hidden_, rows = steps_ * batch_, state = batch_ * H;
  for (std::int64_t j = 0; j < 4 * H; ++j) bias_[j] = b_ih_->value.values[j] + b_hh_->value.values[j];
  float* gates = gates_.data();
  for (std::int64_t r = 0; r < rows; ++r) std::copy(bias_.begin(), bias_.end(), gates + r * 4 * H);
  gemm(false, true, rows, 4 * H, in_, 1.0f, x, w_ih_->value.data(), 1.0f, gates);
  std::copy(h, h + state, h_.data());
  std::copy(c, c + state, c_.data());
  for (std::int64_t t = 0; t < steps_; ++t) {
    float* g = gates + t * batch_ * 4 * H;
    const float* h_prev = h_.data() + t * state;
    const float* c_prev = c_.data() + t * state;
    float* h_next = h_.data() + (t + 1) * state;
    float* c_next = c_.data() + (t + 1) * state;
    float* tanh_c = tanh_c_.data() + t * state;
    gemm(false, true, batch_, 4 * H, H, 1.0f, h_prev, w_hh_->value.data(), 1.0f, g);
#pragma omp parallel for if (state > kParallelGrainTranscendental)
    for (std::int64_t b = 0; b < batch_; ++b) {
      float* row = g + b * 4 * H;
      for (std::int64_t j = 0; j < H; ++j) {
        const float i = sigmoid(row[j]), f = sigmoid(row[H + j]), cell = std::tanh(row[2 * H + j]),
                    o = sigmoid(row[3 * H + j]);
        row[j] = i;  // kept activated: backward needs the gates, not their inputs
        row[H + j] = f;
        row[2 * H + j] = cell;
        row[3 * H + j] = o;
        const std::int64_t at = b * H + j;
        c_next[at] = f * c_prev[at] + i * cell;
        tanh_c[at] = std::tanh(c_next[at]);
        h_next[at] = o * tanh_c[at];
      }
    }
  }
  std::copy(h_.data() + steps_ * state, h_.data() + (steps_ + 1) * state, h);
  std::copy(c_.data() + steps_ * state, c_.data() + (steps_ + 1) * state, c);
  return h_.data() + state;
}

float* LstmLayer::backward(const float* dy) {
  const std::int64_t H = hidden_, rows = steps_ * batch_, state = batch_ * H;
  float* dh_next = grad_h_.data();
  float* dc_next = grad_c_.data();
  std::fill(dh_next, dh_next + state, 0.0f);
  std::fill(dc_next, dc_next + state, 0.0f);
  for (std::int64_t t = steps_ - 1; t >= 0; --t) {
    const float* g = gates_.data() + t * batch_ * 4 * H;
    float* dg = grad_gates_.data() + t * batch_ * 4 * H;
    const float* c_prev = c_.data() + t * state;
    const float* tanh_c = tanh_c_.data() + t * state;
    const float* dy_t = dy + t * state;
#pragma omp parallel for if (state > kParallelGrainTranscendental)
    for (std::int64_t b = 0; b < batch_; ++b) {
      const float* row = g + b * 4 * H;
      float* drow = dg + b * 4 * H;
      for (std::int64_t j = 0; j < H; ++j) {
        const std::int64_t at = b * H + j;
        const float i = row[j], f = row[H + j], cell = row[2 * H + j], o = row[3 * H + j];
        const float dh = dy_t[at] + dh_next[at];
        const float dc = dh * o * (1.0f - tanh_c[at] * tanh_c[at]) + dc_next[at];
        dc_next[at] = dc * f;
        drow[j] = dc * cell * i * (1.0f - i);
        drow[H + j] = dc * c_prev[at] * f * (1.0f - f);
        drow[2 * H + j] = dc * i * (1.0f - cell * cell);
        drow[3 * H + j] = dh * tanh_c[at] * o * (1.0f - o);
      }
    }
    // The gradient reaching h_{t-1}; the window's starting state needs none.
    if (t > 0) gemm(false, false, batch_, H, 4 * H, 1.0f, dg, w_hh_->value.data(), 0.0f, dh_next);
  }
  // Summed over all steps at once: dW_hh = dgates^T h_{t-1}, dW_ih = dgates^T x.
  const float* dgates = grad_gates_.data();
  gemm(true, false, 4 * H, H, rows, 1.0f, dgates, h_.data(), 0.0f, w_hh_->grad.data());
  gemm(true, false, 4 * H, in_, rows, 1.0f, dgates, x_, 0.0f, w_ih_->grad.data());
  column_sums(dgates, rows, 4 * H, b_ih_->grad.data());
  b_hh_->grad.values = b_ih_->grad.values;  // both biases enter the gates the same way
  if (dx_.values.empty()) return nullptr;
  gemm(false, false, rows, in_, 4 * H, 1.0f, dgates, w_ih_->value.data(), 0.0f, dx_.data());
  return dx_.data();
}

}  // namespace dlcbench::reference
