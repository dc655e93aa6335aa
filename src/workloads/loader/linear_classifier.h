// The training step the loader's batches feed: a linear softmax classifier
// trained with SGD and momentum, through the BLAS. It is small on purpose:
// `loader` measures how fast worker processes can hand batches over, so the
// step consumes each batch for real (forward, loss, backward, update) without
// hiding the data path behind a large network's compute.
#pragma once

#include <cstdint>
#include <vector>

namespace dlcbench::loader {

class LinearClassifier {
 public:
  // Weights start at zero, so the first loss is log(classes) on any data.
  LinearClassifier(std::int64_t features, int classes);

  // One step on `batch` examples of features() floats each, row after row,
  // and their labels in [0, classes): logits = x W + b, softmax
  // cross-entropy, its gradient, and the momentum update. Returns the mean
  // loss of the batch before the update.
  double train_step(const float* examples, const std::int32_t* labels, int batch);

  std::int64_t features() const { return features_; }
  int classes() const { return classes_; }

 private:
  std::int64_t features_;
  int classes_;
  float learning_rate_;
  std::vector<float> weights_, bias_;                    // features x classes, classes
  std::vector<float> weight_velocity_, bias_velocity_;   // momentum buffers
  std::vector<float> logits_, weight_gradient_;          // batch x classes, features x classes
};

}  // namespace dlcbench::loader
