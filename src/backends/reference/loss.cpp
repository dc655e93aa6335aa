#include "backends/reference/loss.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {

double softmax_cross_entropy(float* scores, const std::int64_t* labels, std::int64_t rows, std::int64_t classes) {
  for (std::int64_t r = 0; r < rows; ++r)
    if (labels[r] < 0 || labels[r] >= classes)
      throw std::out_of_range(fmt::format("label {} is outside the {} classes", labels[r], classes));
  const auto per_row = static_cast<float>(1.0 / static_cast<double>(rows));
  double total = 0;
#pragma omp parallel for reduction(+ : total) if (rows * classes > kParallelGrainTranscendental)
  for (std::int64_t r = 0; r < rows; ++r) {
    float* s = scores + r * classes;
    // log softmax = s - max - log(sum(exp(s - max))): the exponents stay <= 0.
    const float max = *std::max_element(s, s + classes);
    const float label_score = s[labels[r]] - max;
    double sum = 0;
    for (std::int64_t k = 0; k < classes; ++k) {
      s[k] = std::exp(s[k] - max);
      sum += s[k];
    }
    total += std::log(sum) - label_score;
    const auto scale = static_cast<float>(1.0 / sum) * per_row;
    for (std::int64_t k = 0; k < classes; ++k) s[k] *= scale;
    s[labels[r]] -= per_row;
  }
  return total / static_cast<double>(rows);
}

}  // namespace dlcbench::reference
