// FCN-5 as in the dlbench suite (hclhkbu/dlbench, NetworksConfigsDoc.txt):
// a fully connected network 784-2048-4096-1024-10 with sigmoid activations,
// trained on MNIST by SGD with momentum. Every back end builds it from here.
#pragma once

#include <vector>

#include "workloads/models/model_spec.h"

namespace dlcbench::models {

inline MlpSpec fcn5() {
  return MlpSpec{
      .name = "fcn5",
      .layer_sizes = {784, 2048, 4096, 1024, 10},
      .activation = Activation::kSigmoid,
      .init = WeightInit::kXavierUniform,
      .optimizer = SgdSpec{.learning_rate = 0.05, .momentum = 0.9},
      .dataset = "mnist",
      .default_batch = 64,
  };
}

}  // namespace dlcbench::models
