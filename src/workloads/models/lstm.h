// The 2-layer LSTM language model on PTB of dlbench (after Zaremba et al.
// 2014, arXiv:1409.2329, "small" setting without dropout): vocabulary
// 10,000, embedding and hidden size 256, 32 unrolled steps, weights uniform
// in [-0.1, 0.1], plain SGD with learning rate 1.0 and the gradient norm
// clipped at 5.
#pragma once

#include "workloads/models/model_spec.h"

namespace dlcbench::models {

inline ModelSpec lstm() {
  return ModelSpec{
      .name = "lstm",
      .architecture = LstmSpec{.vocabulary = 10000, .embedding = 256, .hidden = 256, .layers = 2, .sequence = 32,
                               .init_range = 0.1},
      .init = WeightInit::kUniform,
      .optimizer = SgdSpec{.learning_rate = 1.0, .momentum = 0.0, .clip_grad_norm = 5.0},
      .dataset = "ptb",
      .default_batch_cpu = 64,
      .default_batch_gpu = 256,
  };
}

}  // namespace dlcbench::models
