// Pooling on channel-major images (image.h): max and average over square
// windows without padding, rounding the output size down as PyTorch does,
// and global average pooling for the ResNet head.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/reference/image.h"
#include "backends/reference/tensor.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::reference {

class Pool2d {
 public:
  Pool2d(models::PoolKind kind, ImageShape input, std::int64_t kernel, std::int64_t stride);

  ImageShape output_shape() const { return out_; }
  float* forward(const float* x);
  // Max pooling sends each gradient to the window's maximum (the first one
  // in scan order on ties, as PyTorch); average pooling spreads it evenly.
  float* backward(const float* dy);

 private:
  models::PoolKind kind_;
  ImageShape in_, out_;
  std::int64_t kernel_, stride_;
  std::vector<std::int32_t> argmax_;  // per output, the winner's index within its input plane
  Tensor y_, dx_;
};

// [C, N, H, W] -> [N, C]: the mean of every plane, rows ready for a Linear.
class GlobalAvgPool {
 public:
  explicit GlobalAvgPool(ImageShape input);
  float* forward(const float* x);
  float* backward(const float* dy);

 private:
  ImageShape in_;
  Tensor y_, dx_;
};

}  // namespace dlcbench::reference
