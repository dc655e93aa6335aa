#include "backends/reference/linear.h"

#include <algorithm>

#include "backends/reference/gemm.h"

namespace dlcbench::reference {

Linear::Linear(ParameterList& params, const std::string& name, std::int64_t in, std::int64_t out,
               std::int64_t rows, bool input_gradient)
    : in_(in),
      out_(out),
      rows_(rows),
      weight_(&params.add(name + ".weight", {out, in})),
      bias_(&params.add(name + ".bias", {out})),
      y_({rows, out}) {
  if (input_gradient) dx_ = Tensor({rows, in});
}

float* Linear::forward(const float* x) {
  x_ = x;
  float* y = y_.data();
  const float* b = bias_->value.data();
  for (std::int64_t r = 0; r < rows_; ++r) std::copy(b, b + out_, y + r * out_);
  gemm(false, true, rows_, out_, in_, 1.0f, x, weight_->value.data(), 1.0f, y);
  return y;
}

float* Linear::backward(const float* dy) {
  // dW = dy^T x, db = the column sums of dy, dx = dy W
  gemm(true, false, out_, in_, rows_, 1.0f, dy, x_, 0.0f, weight_->grad.data());
  column_sums(dy, rows_, out_, bias_->grad.data());
  if (dx_.values.empty()) return nullptr;
  gemm(false, false, rows_, in_, out_, 1.0f, dy, weight_->value.data(), 0.0f, dx_.data());
  return dx_.data();
}

}  // namespace dlcbench::reference
