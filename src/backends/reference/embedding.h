// A word embedding: row `token` of a [vocabulary, dim] table per position.
#pragma once

#include <cstdint>
#include <string>

#include "backends/reference/tensor.h"

namespace dlcbench::reference {

class Embedding {
 public:
  // Adds name.weight [vocabulary, dim].
  Embedding(ParameterList& params, const std::string& name, std::int64_t vocabulary, std::int64_t dim,
            std::int64_t rows);

  // tokens [rows] -> vectors [rows, dim]. Throws std::out_of_range for a
  // token outside the vocabulary.
  float* forward(const std::int64_t* tokens);
  // The table's gradient: dy's rows added up per token (a token seen twice
  // gets both), zero for tokens not in the batch, as PyTorch's dense
  // embedding gradient.
  void backward(const float* dy);

 private:
  std::int64_t vocabulary_, dim_, rows_;
  Parameter* weight_;
  Tensor y_;
  const std::int64_t* tokens_ = nullptr;
};

}  // namespace dlcbench::reference
