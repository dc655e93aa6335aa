#include "workloads/loader/linear_classifier.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dlcbench::loader {
namespace {

constexpr float kMomentum = 0.9f;
// The bias sees no input's width, so it learns at a fixed rate.
constexpr float kBiasLearningRate = 0.05f;

}  // namespace

LinearClassifier::LinearClassifier(std::int64_t features, int classes)
    : features_(features),
      classes_(classes),
      // Scaled by the input's width, so that one step moves a logit by about
      // the same amount whether the images are 28x28 digits or 3x112x112.
      learning_rate_(static_cast<float>(0.5 / static_cast<double>(features))),
      weights_(static_cast<std::size_t>(features * classes)),
      bias_(static_cast<std::size_t>(classes)),
      weight_velocity_(weights_.size()),
      bias_velocity_(bias_.size()),
      weight_gradient_(weights_.size()) {}

double LinearClassifier::train_step(const float* examples, const std::int32_t* labels, int batch) {
  const auto rows = static_cast<std::size_t>(batch);
  const auto k = static_cast<std::size_t>(classes_);
  logits_.resize(rows * k);
  // Forward: logits = x W + b.
  for (std::size_t r = 0; r < rows; ++r) std::copy(bias_.begin(), bias_.end(), logits_.begin() + static_cast<std::ptrdiff_t>(r * k));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, classes_, static_cast<int>(features_), 1.0f, examples,
              static_cast<int>(features_), weights_.data(), classes_, 1.0f, logits_.data(), classes_);
  // Softmax cross-entropy; logits_ becomes its gradient (p - onehot) / batch.
  double loss = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = &logits_[r * k];
    const auto label = static_cast<std::size_t>(labels[r]);
    if (label >= k) throw std::out_of_range("a label outside the classes");
    const float top = *std::max_element(row, row + k);
    double sum = 0;
    for (std::size_t c = 0; c < k; ++c) sum += std::exp(static_cast<double>(row[c] - top));
    loss += std::log(sum) - static_cast<double>(row[label] - top);
    for (std::size_t c = 0; c < k; ++c) {
      const double p = std::exp(static_cast<double>(row[c] - top)) / sum;
      row[c] = static_cast<float>((p - (c == label ? 1.0 : 0.0)) / batch);
    }
  }
  // Backward: dW = x^T g, db = the column sums of g.
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(features_), classes_, batch, 1.0f, examples,
              static_cast<int>(features_), logits_.data(), classes_, 0.0f, weight_gradient_.data(), classes_);
  // The optimiser step: v = momentum v + g; w -= lr v.
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    weight_velocity_[i] = kMomentum * weight_velocity_[i] + weight_gradient_[i];
    weights_[i] -= learning_rate_ * weight_velocity_[i];
  }
  for (std::size_t c = 0; c < k; ++c) {
    float gradient = 0;
    for (std::size_t r = 0; r < rows; ++r) gradient += logits_[r * k + c];
    bias_velocity_[c] = kMomentum * bias_velocity_[c] + gradient;
    bias_[c] -= kBiasLearningRate * bias_velocity_[c];
  }
  return loss / batch;
}

}  // namespace dlcbench::loader
