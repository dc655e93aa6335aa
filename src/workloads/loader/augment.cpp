#include "workloads/loader/augment.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dlcbench::loader {
namespace {

// Where an output pixel reads from along one axis: two source pixels and the
// weight of the second. Pixel centres aligned, as OpenCV's and PIL's
// bilinear resizes are.
struct Tap {
  int first = 0, second = 0;
  float weight = 0;
};

std::vector<Tap> taps(int source, int edge) {
  std::vector<Tap> out(static_cast<std::size_t>(edge));
  const double scale = static_cast<double>(source) / edge;
  for (int i = 0; i < edge; ++i) {
    const double at = std::clamp((i + 0.5) * scale - 0.5, 0.0, source - 1.0);
    const int first = static_cast<int>(at);
    out[static_cast<std::size_t>(i)] = {first, std::min(first + 1, source - 1), static_cast<float>(at - first)};
  }
  return out;
}

}  // namespace

void augment_example(const float* in, const ImageShape& shape, const Augmentation& augmentation,
                     std::mt19937_64& rng, float* out) {
  const int pad = augmentation.pad;
  // The crop keeps the image's own size; its corner moves over the padding.
  const int top = static_cast<int>(rng() % static_cast<unsigned>(2 * pad + 1)) - pad;
  const int left = static_cast<int>(rng() % static_cast<unsigned>(2 * pad + 1)) - pad;
  const bool mirror = augmentation.flip && (rng() & 1u) != 0;
  const int edge = augmentation.edge;
  const int height = shape.height, width = shape.width;
  // The same for every example of a shape; computed per call to stay
  // stateless (a few hundred entries against edge^2 pixels per channel).
  const std::vector<Tap> rows = taps(height, edge), columns = taps(width, edge);
  std::vector<float> cropped(static_cast<std::size_t>(height * width));
  for (int c = 0; c < shape.channels; ++c) {
    const float* plane = in + static_cast<std::int64_t>(c) * height * width;
    // The crop of the zero-padded image, mirrored if drawn so.
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const int source_y = y + top;
        const int source_x = (mirror ? width - 1 - x : x) + left;
        const bool inside = source_y >= 0 && source_y < height && source_x >= 0 && source_x < width;
        cropped[static_cast<std::size_t>(y * width + x)] = inside ? plane[source_y * width + source_x] : 0.0f;
      }
    float* target = out + static_cast<std::int64_t>(c) * edge * edge;
    for (int y = 0; y < edge; ++y) {
      const Tap& r = rows[static_cast<std::size_t>(y)];
      const float* upper = &cropped[static_cast<std::size_t>(r.first * width)];
      const float* lower = &cropped[static_cast<std::size_t>(r.second * width)];
      for (int x = 0; x < edge; ++x) {
        const Tap& t = columns[static_cast<std::size_t>(x)];
        const float above = upper[t.first] + t.weight * (upper[t.second] - upper[t.first]);
        const float below = lower[t.first] + t.weight * (lower[t.second] - lower[t.first]);
        target[y * edge + x] = above + r.weight * (below - above);
      }
    }
  }
}

}  // namespace dlcbench::loader
