#include "backends/onednn/training.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace dlcbench::onednn {

double softmax_cross_entropy(const Activation& scores, const std::int64_t* labels) {
  const memory::dims dims = scores.desc().dims();
  const std::int64_t rows = dims[0], classes = dims[1];
  const float* x = floats(scores.value);
  float* grad = floats(scores.gradient);
  const float inverse_rows = 1.0f / static_cast<float>(rows);
  double total = 0;
#pragma omp parallel for reduction(+ : total)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * classes;
    float* g = grad + r * classes;
    // Shifted by the largest score so that no exponential overflows; the
    // exponentials wait in the gradient's row for the normalisation.
    const float largest = *std::max_element(row, row + classes);
    double sum = 0;
    for (std::int64_t c = 0; c < classes; ++c) sum += g[c] = std::exp(row[c] - largest);
    const std::int64_t label = labels[r];
    // Out-of-range labels are reported below (a throw cannot leave the loop).
    if (label < 0 || label >= classes) {
      total += std::nan("");
      continue;
    }
    total += largest + std::log(sum) - row[label];  // -log softmax at the label
    const auto scale = static_cast<float>(1.0 / sum) * inverse_rows;
    for (std::int64_t c = 0; c < classes; ++c) g[c] *= scale;
    g[label] -= inverse_rows;
  }
  if (std::isnan(total)) {
    for (std::int64_t r = 0; r < rows; ++r)
      if (labels[r] < 0 || labels[r] >= classes)
        throw std::out_of_range(fmt::format("label {} outside the {} classes", labels[r], classes));
  }
  return total / static_cast<double>(rows);
}

void clip_gradient_norm(std::deque<Parameter>& parameters, double max_norm) {
  double squares = 0;
  for (const auto& p : parameters) {
    const float* g = floats(p.gradient);
    const auto n = static_cast<std::int64_t>(float_count(p.gradient));
#pragma omp parallel for reduction(+ : squares)
    for (std::int64_t i = 0; i < n; ++i) squares += double{g[i]} * g[i];
  }
  const double coefficient = max_norm / (std::sqrt(squares) + 1e-6);
  if (coefficient >= 1) return;
  const auto scale = static_cast<float>(coefficient);
  for (auto& p : parameters) {
    float* g = floats(p.gradient);
    const auto n = static_cast<std::int64_t>(float_count(p.gradient));
#pragma omp parallel for
    for (std::int64_t i = 0; i < n; ++i) g[i] *= scale;
  }
}

// Padding of blocked layouts is zero in weights and gradients alike, so the
// update keeps it zero and can run over whole buffers.
void Sgd::step(std::deque<Parameter>& parameters) {
  const float lr = learning_rate_, mu = momentum_;
  const bool first = first_step_;
  for (auto& p : parameters) {
    float* w = floats(p.value);
    const float* g = floats(p.gradient);
    float* buffer = floats(p.momentum);
    const auto n = static_cast<std::int64_t>(float_count(p.value));
    if (mu == 0.0f) {
#pragma omp parallel for
      for (std::int64_t i = 0; i < n; ++i) w[i] -= lr * g[i];
    } else {
#pragma omp parallel for
      for (std::int64_t i = 0; i < n; ++i) {
        buffer[i] = first ? g[i] : mu * buffer[i] + g[i];
        w[i] -= lr * buffer[i];
      }
    }
  }
  first_step_ = false;
}

}  // namespace dlcbench::onednn
