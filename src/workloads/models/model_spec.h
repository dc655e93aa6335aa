// Network definitions as plain data: layer shapes and training
// hyper-parameters, shared by every back end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlcbench::models {

enum class Activation { kSigmoid, kRelu };

// How weights start. Glorot (Xavier) uniform is what the Caffe and CNTK
// configurations of dlbench use for FCN-5; with the frameworks' fan-in
// default a 4-layer sigmoid network sits on its loss plateau for hundreds of
// steps. Biases start at zero.
enum class WeightInit { kXavierUniform };

struct SgdSpec {
  double learning_rate = 0.01;
  double momentum = 0.0;
};

// A multi-layer perceptron: layer_sizes[0] inputs, layer_sizes.back() classes,
// `activation` after every hidden layer, softmax cross-entropy loss.
struct MlpSpec {
  std::string name;
  std::vector<std::int64_t> layer_sizes;
  Activation activation = Activation::kSigmoid;
  WeightInit init = WeightInit::kXavierUniform;
  SgdSpec optimizer;
  std::string dataset;
  int default_batch = 64;

  std::int64_t parameter_count() const {
    std::int64_t n = 0;
    for (std::size_t i = 1; i < layer_sizes.size(); ++i)
      n += layer_sizes[i - 1] * layer_sizes[i] + layer_sizes[i];
    return n;
  }
  // Multiply-adds are 2 FLOPs; forward is 2*in*out per layer and example,
  // backward twice that (gradients of inputs and of weights).
  double training_flops_per_example() const {
    double f = 0;
    for (std::size_t i = 1; i < layer_sizes.size(); ++i)
      f += 3 * 2.0 * static_cast<double>(layer_sizes[i - 1] * layer_sizes[i]);
    return f;
  }
};

}  // namespace dlcbench::models
