// How the engine stores a batch of images: channel-major, [C, N, H, W].
// One channel of the whole batch is then contiguous, so a convolution is a
// single GEMM over the batch (weights [Cout, C*k*k] times columns
// [C*k*k, N*Ho*Wo] gives the output directly in this layout) and batch
// norm's per-channel statistics read one block. Examples arrive as PyTorch
// lays them out, [N, C, H, W], and are converted once at the input; the
// classifier head converts back where it flattens.
#pragma once

#include <cstdint>

#include "backends/reference/tensor.h"

namespace dlcbench::reference {

struct ImageShape {
  std::int64_t channels = 0, batch = 0, height = 0, width = 0;

  std::int64_t plane() const { return height * width; }
  std::int64_t channel_size() const { return batch * plane(); }
  std::int64_t numel() const { return channels * channel_size(); }
};

// [N, C, H, W] -> [C, N, H, W], and back.
void to_channel_major(const float* batch_major, ImageShape shape, float* channel_major);
void to_batch_major(const float* channel_major, ImageShape shape, float* batch_major);

// The network's input: the examples [N, C, H, W] converted once to the
// engine's layout.
class ChannelMajorInput {
 public:
  explicit ChannelMajorInput(ImageShape shape) : shape_(shape), x_({shape.numel()}) {}
  const float* forward(const float* examples);

 private:
  ImageShape shape_;
  Tensor x_;
};

// The classifier head's x.flatten(1): channel-major features to the rows
// [N, C * H * W] that PyTorch's flatten gives, and the rows' gradient back.
class Flatten {
 public:
  explicit Flatten(ImageShape shape) : shape_(shape), y_({shape.numel()}), dx_({shape.numel()}) {}
  const float* forward(const float* x);
  float* backward(const float* dy);

 private:
  ImageShape shape_;
  Tensor y_, dx_;
};

// ResNet's option-A shortcut (He et al.), which has no parameters: the input
// subsampled as x[:, :, ::stride, ::stride], its channels zero-padded at the
// end up to the output's. Forward adds it to `output`; backward adds the
// gradient that flows back through it to `grad_input`.
void add_shortcut(const float* input, ImageShape in, std::int64_t stride, float* output, ImageShape out);
void add_shortcut_gradient(const float* grad_output, ImageShape out, std::int64_t stride, float* grad_input,
                           ImageShape in);

}  // namespace dlcbench::reference
