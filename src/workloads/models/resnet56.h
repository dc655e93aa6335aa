// ResNet-56 for CIFAR-10 (He et al. 2016, section 4.2: 6n+2 layers, n = 9,
// 16/32/64 channels), with dlbench's block (see ResNetSpec). About 0.85 M
// parameters (853,018). SGD, learning rate 0.01, momentum 0.9, as dlbench.
#pragma once

#include "workloads/models/model_spec.h"

namespace dlcbench::models {

inline ModelSpec resnet56() {
  return ModelSpec{
      .name = "resnet56",
      .architecture = ResNetSpec{.input_shape = {3, 32, 32},
                                 .blocks_per_stage = 9,
                                 .stage_channels = {16, 32, 64},
                                 .classes = 10},
      .init = WeightInit::kKaimingNormal,
      .optimizer = SgdSpec{.learning_rate = 0.01, .momentum = 0.9},
      .dataset = "cifar10",
      .default_batch_cpu = 32,
      .default_batch_gpu = 128,
  };
}

}  // namespace dlcbench::models
