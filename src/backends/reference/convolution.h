// 2-D convolution as im2col + GEMM on channel-major images (image.h). A few
// images at a time are unrolled into columns [C*k*k, images*Ho*Wo], one row
// per (input channel, kernel row, kernel column), and the weights
// [Cout, C*k*k] multiply them in one sgemm whose result is a band of the
// output's columns. The groups of images are shared out among the OpenMP
// threads, each with its own columns, small enough to stay in its cache:
// unrolling the whole batch at once would stream k*k copies of every
// activation through memory.
//
// Backward unrolls the input again (instead of keeping every layer's
// columns) for the weight gradient, dy * columns^T, summed over the groups.
// The input gradient of a stride-1 convolution is itself a stride-1
// convolution, of dy with the weights turned 180 degrees and input and
// output channels swapped, so it is one more im2col and GEMM; other strides
// fold W^T * dy back into the input's shape (col2im).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/reference/image.h"
#include "backends/reference/tensor.h"

namespace dlcbench::reference {

// Scratch memory for the unrolled columns, shared by all the convolutions of
// a network (only one runs at a time), one slice per thread. Sized when the
// layers are built.
struct Workspace {
  std::vector<float> values;
  void reserve(std::int64_t n) {
    if (static_cast<std::int64_t>(values.size()) < n) values.resize(static_cast<std::size_t>(n));
  }
};

struct ConvOptions {
  std::int64_t out_channels = 0, kernel = 0, stride = 1, padding = 0;
  bool bias = true;
};

// Which input positions a convolution reads for each output position.
struct ConvGeometry {
  ImageShape in, out;
  std::int64_t kernel = 0, stride = 1, padding = 0;

  std::int64_t column_rows() const { return in.channels * kernel * kernel; }
};

// For images [first, first + count) of x:
// columns[(c, ki, kj), (n - first, oh, ow)] = x[c, n, oh*s - p + ki, ow*s - p + kj],
// 0 in the padding; columns is [column_rows, count*Ho*Wo].
void im2col(const ConvGeometry& g, const float* x, std::int64_t first, std::int64_t count, float* columns);
// The adjoint for the same images: their planes of dx are set to the sum of
// the column entries read from each position.
void col2im(const ConvGeometry& g, const float* columns, std::int64_t first, std::int64_t count, float* dx);

class Conv2d {
 public:
  // Adds name.weight [Cout, C, k, k] (and name.bias [Cout]) to `params`.
  // Without input_gradient, backward() skips dx (the network's first layer).
  Conv2d(ParameterList& params, const std::string& name, ImageShape input, ConvOptions options,
         Workspace& workspace, bool input_gradient);

  ImageShape output_shape() const { return out_; }
  // x [C, N, H, W] -> y [Cout, N, Ho, Wo]; x must stay unchanged until backward().
  float* forward(const float* x);
  // dy -> weight and bias gradients, and dx (nullptr without input_gradient).
  float* backward(const float* dy);
  float* output() { return y_.data(); }

 private:
  std::int64_t groups() const { return (in_.batch + group_images_ - 1) / group_images_; }

  ImageShape in_, out_;
  ConvGeometry geometry_;
  std::int64_t group_images_ = 1;     // images unrolled together
  std::int64_t workspace_slice_ = 0;  // floats of workspace per thread
  int threads_ = 1;
  // For stride 1: dx is the convolution of dy with flipped_ [C, Cout, k, k]
  // and padding k - 1 - p, which gives back the input's size.
  bool transposed_backward_ = false;
  ConvGeometry transposed_;
  std::vector<float> flipped_;
  std::vector<float> weight_grads_;  // one partial weight gradient per thread, summed in thread order
  Parameter* weight_;
  Parameter* bias_ = nullptr;
  Workspace* workspace_;
  Tensor y_, dx_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::reference
