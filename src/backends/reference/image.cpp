#include "backends/reference/image.h"

#include <algorithm>

#include "backends/reference/parallel.h"

namespace dlcbench::reference {

void to_channel_major(const float* batch_major, ImageShape s, float* channel_major) {
  const std::int64_t plane = s.plane();
#pragma omp parallel for collapse(2) if (s.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < s.channels; ++c)
    for (std::int64_t n = 0; n < s.batch; ++n) {
      const float* from = batch_major + (n * s.channels + c) * plane;
      std::copy(from, from + plane, channel_major + (c * s.batch + n) * plane);
    }
}

void to_batch_major(const float* channel_major, ImageShape s, float* batch_major) {
  const std::int64_t plane = s.plane();
#pragma omp parallel for collapse(2) if (s.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < s.channels; ++c)
    for (std::int64_t n = 0; n < s.batch; ++n) {
      const float* from = channel_major + (c * s.batch + n) * plane;
      std::copy(from, from + plane, batch_major + (n * s.channels + c) * plane);
    }
}

const float* ChannelMajorInput::forward(const float* examples) {
  to_channel_major(examples, shape_, x_.data());
  return x_.data();
}

const float* Flatten::forward(const float* x) {
  to_batch_major(x, shape_, y_.data());
  return y_.data();
}

float* Flatten::backward(const float* dy) {
  to_channel_major(dy, shape_, dx_.data());
  return dx_.data();
}

// Only the input's channels take part: the padded ones are zero, adding
// nothing forward and receiving a gradient nobody needs.
void add_shortcut(const float* input, ImageShape in, std::int64_t stride, float* output, ImageShape out) {
#pragma omp parallel for collapse(2) if (out.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < in.channels; ++c)
    for (std::int64_t n = 0; n < in.batch; ++n) {
      const float* x = input + (c * in.batch + n) * in.plane();
      float* y = output + (c * out.batch + n) * out.plane();
      for (std::int64_t oh = 0; oh < out.height; ++oh)
        for (std::int64_t ow = 0; ow < out.width; ++ow)
          y[oh * out.width + ow] += x[oh * stride * in.width + ow * stride];
    }
}

void add_shortcut_gradient(const float* grad_output, ImageShape out, std::int64_t stride, float* grad_input,
                           ImageShape in) {
#pragma omp parallel for collapse(2) if (out.numel() > kParallelGrain)
  for (std::int64_t c = 0; c < in.channels; ++c)
    for (std::int64_t n = 0; n < in.batch; ++n) {
      const float* dy = grad_output + (c * out.batch + n) * out.plane();
      float* dx = grad_input + (c * in.batch + n) * in.plane();
      for (std::int64_t oh = 0; oh < out.height; ++oh)
        for (std::int64_t ow = 0; ow < out.width; ++ow)
          dx[oh * stride * in.width + ow * stride] += dy[oh * out.width + ow];
    }
}

}  // namespace dlcbench::reference
