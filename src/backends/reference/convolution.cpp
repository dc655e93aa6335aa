#include "backends/reference/convolution.h"

#include <algorithm>

#include <omp.h>

#include "backends/reference/gemm.h"
#include "backends/reference/parallel.h"

namespace dlcbench::reference {
namespace {

// The output positions o in [0, count) whose input position o*stride + offset
// lies inside [0, size): everything outside reads the zero padding.
struct ValidRange {
  std::int64_t begin, end;
};
ValidRange valid_outputs(std::int64_t offset, std::int64_t stride, std::int64_t size, std::int64_t count) {
  std::int64_t begin = 0;
  while (begin < count && begin * stride + offset < 0) ++begin;
  std::int64_t end = count;
  while (end > begin && (end - 1) * stride + offset >= size) --end;
  return {begin, end};
}

// One row of an image seen through one kernel position: to[ow] =
// image[at + ow * stride] where that lies in the image, 0 in the padding.
void gather_row(float* __restrict to, const float* __restrict image, std::int64_t at, std::int64_t stride,
                ValidRange cols, std::int64_t width) {
  for (std::int64_t ow = 0; ow < cols.begin; ++ow) to[ow] = 0.0f;
  if (stride == 1) {
#pragma omp simd
    for (std::int64_t ow = cols.begin; ow < cols.end; ++ow) to[ow] = image[at + ow];
  } else {
    for (std::int64_t ow = cols.begin; ow < cols.end; ++ow) to[ow] = image[at + ow * stride];
  }
  for (std::int64_t ow = cols.end; ow < width; ++ow) to[ow] = 0.0f;
}

// The adjoint of gather_row: image[at + ow * stride] += from[ow].
void scatter_add_row(float* __restrict image, const float* __restrict from, std::int64_t at, std::int64_t stride,
                     ValidRange cols) {
  if (stride == 1) {
#pragma omp simd
    for (std::int64_t ow = cols.begin; ow < cols.end; ++ow) image[at + ow] += from[ow];
  } else {
    for (std::int64_t ow = cols.begin; ow < cols.end; ++ow) image[at + ow * stride] += from[ow];
  }
}

// im2col for a stride-1 convolution whose output is as wide as its input
// (padding (k - 1) / 2): one image's part of a column row is then the image
// itself shifted by (ki - p) rows and (kj - p) columns. It is copied as one
// block, and the few values that wrapped around a row edge or fell outside
// the image are set to zero afterwards: far fewer, longer copies than row by
// row.
void shifted_copy(const ConvGeometry& g, const float* image, std::int64_t ki, std::int64_t kj, float* to) {
  const std::int64_t width = g.in.width, height = g.in.height, plane = g.in.plane();
  const std::int64_t row_shift = ki - g.padding, column_shift = kj - g.padding;
  // to[i] = image[i + shift] where that lies inside the image, else 0.
  const std::int64_t shift = row_shift * width + column_shift;
  const std::int64_t begin = std::clamp<std::int64_t>(-shift, 0, plane);
  const std::int64_t end = std::clamp<std::int64_t>(plane - shift, begin, plane);
  std::fill(to, to + begin, 0.0f);
  if (begin < end) std::copy(image + (begin + shift), image + (end + shift), to + begin);
  std::fill(to + end, to + plane, 0.0f);
  // Columns whose source lies beyond the left or right edge read the
  // neighbouring row: the padding is zero there.
  const std::int64_t zero_begin = column_shift < 0 ? 0 : width - column_shift;
  const std::int64_t zero_end = column_shift < 0 ? -column_shift : width;
  for (std::int64_t oh = 0; oh < height; ++oh)
    for (std::int64_t ow = zero_begin; ow < zero_end; ++ow) to[oh * width + ow] = 0.0f;
}

}  // namespace

void im2col(const ConvGeometry& g, const float* x, std::int64_t first, std::int64_t count, float* columns) {
  const std::int64_t k = g.kernel, s = g.stride, p = g.padding;
  const std::int64_t columns_per_row = count * g.out.plane();
  const bool shifted = s == 1 && g.out.width == g.in.width && g.out.height == g.in.height;
  for (std::int64_t row = 0; row < g.column_rows(); ++row) {
    const std::int64_t c = row / (k * k), ki = row / k % k, kj = row % k;
    const ValidRange cols = valid_outputs(kj - p, s, g.in.width, g.out.width);
    for (std::int64_t n = 0; n < count; ++n) {
      const float* image = x + (c * g.in.batch + first + n) * g.in.plane();
      float* to_image = columns + row * columns_per_row + n * g.out.plane();
      if (shifted) {
        shifted_copy(g, image, ki, kj, to_image);
        continue;
      }
      for (std::int64_t oh = 0; oh < g.out.height; ++oh) {
        float* to = to_image + oh * g.out.width;
        const std::int64_t ih = oh * s - p + ki;
        if (ih < 0 || ih >= g.in.height)
          std::fill(to, to + g.out.width, 0.0f);
        else
          gather_row(to, image, ih * g.in.width + kj - p, s, cols, g.out.width);
      }
    }
  }
}

void col2im(const ConvGeometry& g, const float* columns, std::int64_t first, std::int64_t count, float* dx) {
  const std::int64_t k = g.kernel, s = g.stride, p = g.padding;
  const std::int64_t columns_per_row = count * g.out.plane();
  for (std::int64_t c = 0; c < g.in.channels; ++c)
    for (std::int64_t n = 0; n < count; ++n) {
      float* image = dx + (c * g.in.batch + first + n) * g.in.plane();
      std::fill(image, image + g.in.plane(), 0.0f);
      for (std::int64_t ki = 0; ki < k; ++ki)
        for (std::int64_t kj = 0; kj < k; ++kj) {
          const std::int64_t row = (c * k + ki) * k + kj;
          const ValidRange cols = valid_outputs(kj - p, s, g.in.width, g.out.width);
          for (std::int64_t oh = 0; oh < g.out.height; ++oh) {
            const std::int64_t ih = oh * s - p + ki;
            if (ih < 0 || ih >= g.in.height) continue;
            const float* from = columns + row * columns_per_row + (n * g.out.height + oh) * g.out.width;
            scatter_add_row(image, from, ih * g.in.width + kj - p, s, cols);
          }
        }
    }
}

namespace {

// Columns per thread at most, in floats: about a megabyte, what a core's
// own cache holds, so the GEMM reads back the columns just written.
constexpr std::int64_t kGroupColumns = 1 << 18;

}  // namespace

Conv2d::Conv2d(ParameterList& params, const std::string& name, ImageShape input, ConvOptions options,
               Workspace& workspace, bool input_gradient)
    : in_(input), threads_(omp_get_max_threads()), workspace_(&workspace) {
  const std::int64_t k = options.kernel;
  out_ = {options.out_channels, input.batch, (input.height + 2 * options.padding - k) / options.stride + 1,
          (input.width + 2 * options.padding - k) / options.stride + 1};
  geometry_ = {in_, out_, k, options.stride, options.padding};
  weight_ = &params.add(name + ".weight", {options.out_channels, input.channels, k, k});
  if (options.bias) bias_ = &params.add(name + ".bias", {options.out_channels});
  y_ = Tensor({out_.numel()});
  weight_grads_.resize(static_cast<std::size_t>(threads_) * weight_->value.values.size());
  if (input_gradient) {
    dx_ = Tensor({in_.numel()});
    transposed_backward_ = options.stride == 1 && options.padding < k;
    if (transposed_backward_) {
      transposed_ = {out_, in_, k, 1, k - 1 - options.padding};
      flipped_.resize(weight_->value.values.size());
    }
  }
  // Columns of one image, for the forward pass and for each backward one.
  std::int64_t per_image = geometry_.column_rows() * out_.plane();
  if (transposed_backward_) per_image = std::max(per_image, transposed_.column_rows() * in_.plane());
  // As many images as fit the cache, but enough groups for every thread.
  const std::int64_t per_thread = (in_.batch + threads_ - 1) / threads_;
  group_images_ = std::clamp<std::int64_t>(kGroupColumns / per_image, 1, per_thread);
  workspace_slice_ = group_images_ * per_image;
  workspace.reserve(threads_ * workspace_slice_);
}

float* Conv2d::forward(const float* x) {
  x_ = x;
  float* y = y_.data();
  const std::int64_t per_channel = out_.channel_size(), plane = out_.plane();
  if (bias_) {
    const float* b = bias_->value.data();
    for (std::int64_t c = 0; c < out_.channels; ++c) std::fill(y + c * per_channel, y + (c + 1) * per_channel, b[c]);
  }
  const float* w = weight_->value.data();
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (std::int64_t group = 0; group < groups(); ++group) {
    float* columns = workspace_->values.data() + omp_get_thread_num() * workspace_slice_;
    const std::int64_t first = group * group_images_, count = std::min(group_images_, in_.batch - first);
    im2col(geometry_, x, first, count, columns);
    // This group's band of y: columns [first * plane, (first + count) * plane).
    gemm_on_this_thread(false, false, out_.channels, count * plane, geometry_.column_rows(), 1.0f, w,
                        geometry_.column_rows(), columns, count * plane, bias_ ? 1.0f : 0.0f, y + first * plane,
                        per_channel);
  }
  return y;
}

float* Conv2d::backward(const float* dy) {
  const std::int64_t per_channel = out_.channel_size(), plane = out_.plane(), rows = geometry_.column_rows();
  const std::int64_t weight_size = weight_->value.numel();
  const float* w = weight_->value.data();
  const bool input_gradient = !dx_.values.empty();
  if (transposed_backward_) {
    // flipped[c, co, ki, kj] = weight[co, c, k-1-ki, k-1-kj]
    const std::int64_t kk = geometry_.kernel * geometry_.kernel;
    for (std::int64_t co = 0; co < out_.channels; ++co)
      for (std::int64_t c = 0; c < in_.channels; ++c)
        for (std::int64_t i = 0; i < kk; ++i)
          flipped_[(c * out_.channels + co) * kk + i] = w[(co * in_.channels + c) * kk + (kk - 1 - i)];
  }
  std::fill(weight_grads_.begin(), weight_grads_.end(), 0.0f);
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (std::int64_t group = 0; group < groups(); ++group) {
    const int thread = omp_get_thread_num();
    float* columns = workspace_->values.data() + thread * workspace_slice_;
    const std::int64_t first = group * group_images_, count = std::min(group_images_, in_.batch - first);
    const float* dy_band = dy + first * plane;
    // This thread's share of dW = dy * columns^T.
    im2col(geometry_, x_, first, count, columns);
    gemm_on_this_thread(false, true, out_.channels, rows, count * plane, 1.0f, dy_band, per_channel, columns,
                        count * plane, 1.0f, weight_grads_.data() + thread * weight_size, rows);
    if (!input_gradient) continue;
    float* dx_band = dx_.data() + first * in_.plane();
    if (transposed_backward_) {
      im2col(transposed_, dy, first, count, columns);
      gemm_on_this_thread(false, false, in_.channels, count * in_.plane(), transposed_.column_rows(), 1.0f,
                          flipped_.data(), transposed_.column_rows(), columns, count * in_.plane(), 0.0f, dx_band,
                          in_.channel_size());
    } else {
      gemm_on_this_thread(true, false, rows, count * plane, out_.channels, 1.0f, w, rows, dy_band, per_channel, 0.0f,
                          columns, count * plane);
      col2im(geometry_, columns, first, count, dx_.data());
    }
  }
  // The threads' partial sums, added in thread order: the same result every run.
  float* dw = weight_->grad.data();
  std::copy(weight_grads_.begin(), weight_grads_.begin() + weight_size, dw);
  for (int t = 1; t < threads_; ++t) {
    const float* partial = weight_grads_.data() + t * weight_size;
    for (std::int64_t i = 0; i < weight_size; ++i) dw[i] += partial[i];
  }
  if (bias_) {
    float* db = bias_->grad.data();
#pragma omp parallel for if (out_.numel() > kParallelGrain)
    for (std::int64_t c = 0; c < out_.channels; ++c) {
      const float* g = dy + c * per_channel;
      double sum = 0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t i = 0; i < per_channel; ++i) sum += g[i];
      db[c] = static_cast<float>(sum);
    }
  }
  return input_gradient ? dx_.data() : nullptr;
}

}  // namespace dlcbench::reference
