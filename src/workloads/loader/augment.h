// What a training pipeline's data workers do to each example before it is
// batched: a random crop of the image padded with zeros, a random horizontal
// flip where the data set allows it (CIFAR-10; never digits), and a bilinear
// resize to the network's input edge (the step that makes an image pipeline's
// batches large, as ImageNet-style models resize to 224).
#pragma once

#include <cstdint>
#include <random>

namespace dlcbench::loader {

struct ImageShape {
  int channels = 1;
  int height = 28;
  int width = 28;
  std::int64_t floats() const { return std::int64_t{channels} * height * width; }
};

struct Augmentation {
  int pad = 4;        // zeros around the image before the crop, in pixels
  bool flip = false;  // mirror left-right with probability 1/2
  int edge = 28;      // the output is channels x edge x edge
};

// Reads one example, channel-major (CHW floats, as the data readers give
// it), and writes channels x edge x edge floats to `out`. The crop offset and
// the flip are drawn from `rng`, so a seeded generator repeats the batch.
void augment_example(const float* in, const ImageShape& shape, const Augmentation& augmentation,
                     std::mt19937_64& rng, float* out);

}  // namespace dlcbench::loader
