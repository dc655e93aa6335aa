// Batch normalisation in training mode (Ioffe and Szegedy 2015), as
// PyTorch's BatchNorm2d: per channel, the batch mean and biased variance
// over N, H and W, y = weight * (x - mean) / sqrt(var + 1e-5) + bias.
// Running statistics are not kept: only training is timed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/reference/image.h"
#include "backends/reference/tensor.h"

namespace dlcbench::reference {

class BatchNorm2d {
 public:
  // Adds name.weight and name.bias, [C] each.
  BatchNorm2d(ParameterList& params, const std::string& name, ImageShape shape);

  // x must stay unchanged until backward(): the normalised values are
  // recomputed from it there rather than stored.
  float* forward(const float* x);
  // In place: the gradient of the output becomes that of the input, which
  // is returned (grad itself).
  float* backward(float* grad);
  float* output() { return y_.data(); }

 private:
  ImageShape shape_;
  Parameter* weight_;
  Parameter* bias_;
  std::vector<float> mean_, inv_std_;
  Tensor y_;
  const float* x_ = nullptr;
};

}  // namespace dlcbench::reference
