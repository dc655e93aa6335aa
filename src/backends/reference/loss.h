// Softmax cross-entropy, as torch::nn::functional::cross_entropy with its
// defaults: the mean over rows of -log softmax(scores)[label].
#pragma once

#include <cstdint>

namespace dlcbench::reference {

// Returns the loss and overwrites `scores` [rows, classes] with its
// gradient, (softmax - one_hot(label)) / rows: the scores are not needed
// after this, so the gradient takes their memory. Throws std::out_of_range
// for a label outside [0, classes).
double softmax_cross_entropy(float* scores, const std::int64_t* labels, std::int64_t rows, std::int64_t classes);

}  // namespace dlcbench::reference
