// AlexNet-R for CIFAR-10 as in dlbench: cuda-convnet's layers-18pct
// network without local response normalisation. Three 5x5 convolutions
// (32, 32, 64 filters, padding 2, each followed by ReLU and 3x3 stride-2
// pooling) and a fully connected layer to the 10 classes.
//
// Pooling rounds down, as Torch and TensorFlow do (32 -> 15 -> 7 -> 3), which
// gives dlbench's documented parameter count of about 85,000 (85,098).
// The pooling kinds follow DESIGN.md (max, max, average); cuda-convnet's
// 18pct file uses average pooling for the second stage.
// Training as dlbench: SGD, learning rate 0.01, momentum 0.9.
#pragma once

#include "workloads/models/model_spec.h"

namespace dlcbench::models {

inline ModelSpec alexnet() {
  return ModelSpec{
      .name = "alexnet",
      .architecture =
          ConvNetSpec{
              .input_shape = {3, 32, 32},
              .stages = {{.out_channels = 32, .kernel = 5, .stride = 1, .padding = 2, .pool = PoolKind::kMax},
                         {.out_channels = 32, .kernel = 5, .stride = 1, .padding = 2, .pool = PoolKind::kMax},
                         {.out_channels = 64, .kernel = 5, .stride = 1, .padding = 2, .pool = PoolKind::kAverage}},
              .activation = Activation::kRelu,
              .classes = 10,
          },
      .init = WeightInit::kKaimingNormal,
      .optimizer = SgdSpec{.learning_rate = 0.01, .momentum = 0.9},
      .dataset = "cifar10",
      .default_batch_cpu = 64,
      .default_batch_gpu = 1024,
  };
}

}  // namespace dlcbench::models
