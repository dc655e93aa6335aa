// FCN-5 as in the dlbench suite (hclhkbu/dlbench, NetworksConfigsDoc.txt):
// a fully connected network 784-2048-4096-1024-10 with sigmoid activations,
// trained on MNIST by SGD with momentum 0.9, learning rate 0.05.
#pragma once

#include "workloads/models/model_spec.h"

namespace dlcbench::models {

inline ModelSpec fcn5() {
  return ModelSpec{
      .name = "fcn5",
      .architecture = MlpSpec{.layer_sizes = {784, 2048, 4096, 1024, 10}, .activation = Activation::kSigmoid},
      .init = WeightInit::kXavierUniform,
      .optimizer = SgdSpec{.learning_rate = 0.05, .momentum = 0.9},
      .dataset = "mnist",
      .default_batch_cpu = 64,
      .default_batch_gpu = 1024,
  };
}

}  // namespace dlcbench::models
