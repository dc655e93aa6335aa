#include "backends/reference/embedding.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace dlcbench::reference {

Embedding::Embedding(ParameterList& params, const std::string& name, std::int64_t vocabulary, std::int64_t dim,
                     std::int64_t rows)
    : vocabulary_(vocabulary), dim_(dim), rows_(rows), weight_(&params.add(name + ".weight", {vocabulary, dim})),
      y_({rows, dim}) {}

float* Embedding::forward(const std::int64_t* tokens) {
  for (std::int64_t r = 0; r < rows_; ++r)
    if (tokens[r] < 0 || tokens[r] >= vocabulary_)
      throw std::out_of_range(fmt::format("token {} is outside the vocabulary of {} words", tokens[r], vocabulary_));
  tokens_ = tokens;
  const float* table = weight_->value.data();
  float* y = y_.data();
  for (std::int64_t r = 0; r < rows_; ++r) std::copy_n(table + tokens[r] * dim_, dim_, y + r * dim_);
  return y;
}

void Embedding::backward(const float* dy) {
  float* grad = weight_->grad.data();
  std::fill(grad, grad + vocabulary_ * dim_, 0.0f);
  for (std::int64_t r = 0; r < rows_; ++r) {
    float* row = grad + tokens_[r] * dim_;
    const float* g = dy + r * dim_;
    for (std::int64_t j = 0; j < dim_; ++j) row[j] += g[j];
  }
}

}  // namespace dlcbench::reference
