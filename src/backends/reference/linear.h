// A fully connected layer, y = x W^T + b, on a fixed number of rows (the
// batch, or sequence x batch for the language model's decoder). All three
// products go to OpenBLAS's sgemm.
#pragma once

#include <cstdint>
#include <string>

#include "backends/reference/tensor.h"

namespace dlcbench::reference {

class Linear {
 public:
  // weight [out, in] and bias [out] are added to `params` as name.weight and
  // name.bias. Without input_gradient, backward() skips dx (the first layer).
  Linear(ParameterList& params, const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows,
         bool input_gradient);

  // x [rows, in] -> y [rows, out]; x must stay unchanged until backward().
  float* forward(const float* x);
  // dy [rows, out] -> the weight and bias gradients, and dx [rows, in]
  // (nullptr without input_gradient).
  float* backward(const float* dy);
  float* output() { return y_.data(); }

 private:
  std::int64_t in_, out_, rows_;
  Parameter* weight_;
  Parameter* bias_;
  Tensor y_, dx_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::reference
