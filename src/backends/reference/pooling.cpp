#include "backends/reference/pooling.h"

#include <algorithm>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {

Pool2d::Pool2d(models::PoolKind kind, ImageShape input, std::int64_t kernel, std::int64_t stride)
    : kind_(kind),
      in_(input),
      out_{input.channels, input.batch, (input.height - kernel) / stride + 1, (input.width - kernel) / stride + 1},
      kernel_(kernel),
      stride_(stride),
      y_({out_.numel()}),
      dx_({in_.numel()}) {
  if (kind == models::PoolKind::kMax) argmax_.resize(static_cast<std::size_t>(out_.numel()));
}

float* Pool2d::forward(const float* x) {
  const std::int64_t planes = in_.channels * in_.batch;
  const float area = static_cast<float>(kernel_ * kernel_);
  float* y = y_.data();
#pragma omp parallel for if (in_.numel() > kParallelGrain)
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    const float* image = x + plane * in_.plane();
    float* pooled = y + plane * out_.plane();
    std::int32_t* winner = kind_ == models::PoolKind::kMax ? argmax_.data() + plane * out_.plane() : nullptr;
    for (std::int64_t oh = 0; oh < out_.height; ++oh)
      for (std::int64_t ow = 0; ow < out_.width; ++ow) {
        const std::int64_t top = oh * stride_, left = ow * stride_;
        if (winner) {
          std::int64_t best = top * in_.width + left;
          float best_value = image[best];
          for (std::int64_t i = top; i < top + kernel_; ++i)
            for (std::int64_t j = left; j < left + kernel_; ++j) {
              const std::int64_t at = i * in_.width + j;
              const bool better = image[at] > best_value;  // strictly: the first maximum wins
              best_value = better ? image[at] : best_value;  // selects, not branches: the winner is unpredictable
              best = better ? at : best;
            }
          pooled[oh * out_.width + ow] = best_value;
          winner[oh * out_.width + ow] = static_cast<std::int32_t>(best);
        } else {
          float sum = 0;
          for (std::int64_t i = top; i < top + kernel_; ++i)
            for (std::int64_t j = left; j < left + kernel_; ++j) sum += image[i * in_.width + j];
          pooled[oh * out_.width + ow] = sum / area;
        }
      }
  }
  return y;
}

float* Pool2d::backward(const float* dy) {
  const std::int64_t planes = in_.channels * in_.batch;
  const float area = static_cast<float>(kernel_ * kernel_);
  float* dx = dx_.data();
#pragma omp parallel for if (in_.numel() > kParallelGrain)
  for (std::int64_t plane = 0; plane < planes; ++plane) {
    float* image = dx + plane * in_.plane();
    const float* g = dy + plane * out_.plane();
    std::fill(image, image + in_.plane(), 0.0f);
    if (kind_ == models::PoolKind::kMax) {
      const std::int32_t* winner = argmax_.data() + plane * out_.plane();
      for (std::int64_t o = 0; o < out_.plane(); ++o) image[winner[o]] += g[o];
      continue;
    }
    for (std::int64_t oh = 0; oh < out_.height; ++oh)
      for (std::int64_t ow = 0; ow < out_.width; ++ow) {
        const float share = g[oh * out_.width + ow] / area;
        for (std::int64_t i = oh * stride_; i < oh * stride_ + kernel_; ++i)
          for (std::int64_t j = ow * stride_; j < ow * stride_ + kernel_; ++j) image[i * in_.width + j] += share;
      }
  }
  return dx;
}

GlobalAvgPool::GlobalAvgPool(ImageShape input)
    : in_(input), y_({input.batch, input.channels}), dx_({input.numel()}) {}

float* GlobalAvgPool::forward(const float* x) {
  float* y = y_.data();
  const auto area = static_cast<double>(in_.plane());
#pragma omp parallel for collapse(2) if (in_.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < in_.channels; ++c)
    for (std::int64_t n = 0; n < in_.batch; ++n) {
      const float* image = x + (c * in_.batch + n) * in_.plane();
      double sum = 0;
      for (std::int64_t i = 0; i < in_.plane(); ++i) sum += image[i];
      y[n * in_.channels + c] = static_cast<float>(sum / area);
    }
  return y;
}

float* GlobalAvgPool::backward(const float* dy) {
  float* dx = dx_.data();
  const auto area = static_cast<float>(in_.plane());
#pragma omp parallel for collapse(2) if (in_.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < in_.channels; ++c)
    for (std::int64_t n = 0; n < in_.batch; ++n) {
      float* image = dx + (c * in_.batch + n) * in_.plane();
      std::fill(image, image + in_.plane(), dy[n * in_.channels + c] / area);
    }
  return dx;
}

}  // namespace dlcbench::reference
