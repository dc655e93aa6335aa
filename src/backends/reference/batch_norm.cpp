#include "backends/reference/batch_norm.h"

#include <cmath>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {
namespace {

constexpr double kEpsilon = 1e-5;  // PyTorch's default

}  // namespace

BatchNorm2d::BatchNorm2d(ParameterList& params, const std::string& name, ImageShape shape)
    : shape_(shape),
      weight_(&params.add(name + ".weight", {shape.channels})),
      bias_(&params.add(name + ".bias", {shape.channels})),
      mean_(static_cast<std::size_t>(shape.channels)),
      inv_std_(static_cast<std::size_t>(shape.channels)),
      y_({shape.numel()}) {}

float* BatchNorm2d::forward(const float* x) {
  x_ = x;
  const std::int64_t count = shape_.channel_size();  // values per channel: channel-major keeps them together
  const float* w = weight_->value.data();
  const float* b = bias_->value.data();
  float* y = y_.data();
#pragma omp parallel for if (shape_.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < shape_.channels; ++c) {
    const float* xc = x + c * count;
    // Two passes in double: the variance of values far from zero keeps its digits.
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t i = 0; i < count; ++i) sum += xc[i];
    const double mean = sum / static_cast<double>(count);
    double squares = 0;
#pragma omp simd reduction(+ : squares)
    for (std::int64_t i = 0; i < count; ++i) squares += (xc[i] - mean) * (xc[i] - mean);
    const double inv_std = 1.0 / std::sqrt(squares / static_cast<double>(count) + kEpsilon);
    mean_[c] = static_cast<float>(mean);
    inv_std_[c] = static_cast<float>(inv_std);
    // y = x * scale + shift, the form PyTorch's CPU kernel uses.
    const auto scale = static_cast<float>(w[c] * inv_std);
    const auto shift = static_cast<float>(b[c] - mean * w[c] * inv_std);
    float* yc = y + c * count;
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i) yc[i] = xc[i] * scale + shift;
  }
  return y;
}

// With x^ = (x - mean) * inv_std and m values per channel:
//   dweight = sum(dy * x^), dbias = sum(dy),
//   dx = weight * inv_std * (dy - dbias / m - x^ * dweight / m),
// the mean and variance depending on every x of the channel.
float* BatchNorm2d::backward(float* grad) {
  const std::int64_t count = shape_.channel_size();
  const float* w = weight_->value.data();
  float* dw = weight_->grad.data();
  float* db = bias_->grad.data();
#pragma omp parallel for if (shape_.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < shape_.channels; ++c) {
    const float* xc = x_ + c * count;
    float* g = grad + c * count;
    const float mean = mean_[c], inv_std = inv_std_[c];
    double sum_dy = 0, sum_dy_xhat = 0;
#pragma omp simd reduction(+ : sum_dy, sum_dy_xhat)
    for (std::int64_t i = 0; i < count; ++i) {
      sum_dy += g[i];
      sum_dy_xhat += g[i] * ((xc[i] - mean) * inv_std);
    }
    dw[c] = static_cast<float>(sum_dy_xhat);
    db[c] = static_cast<float>(sum_dy);
    const float scale = w[c] * inv_std;
    const auto mean_dy = static_cast<float>(sum_dy / static_cast<double>(count));
    const auto mean_dy_xhat = static_cast<float>(sum_dy_xhat / static_cast<double>(count));
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i)
      g[i] = scale * (g[i] - mean_dy - (xc[i] - mean) * inv_std * mean_dy_xhat);
  }
  return grad;
}

}  // namespace dlcbench::reference
