// The networks of src/workloads/models as LibTorch modules, in the style of
// the PyTorch C++ examples: each a short module whose forward() reads like
// the model description.
#pragma once

#include <memory>
#include <tuple>

#include <torch/torch.h>

#include "workloads/models/model_spec.h"

namespace dlcbench::torch_backend {

// An image or feature classifier: examples in, class scores out.
struct Classifier : torch::nn::Module {
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

std::shared_ptr<Classifier> make_classifier(const models::ModelSpec& spec);

using LstmState = std::tuple<torch::Tensor, torch::Tensor>;

struct LanguageModel : torch::nn::Module {
  explicit LanguageModel(const models::LstmSpec& spec);
  // tokens [sequence, batch] -> scores [sequence * batch, vocabulary]
  std::pair<torch::Tensor, LstmState> forward(torch::Tensor tokens, const LstmState& state);
  LstmState initial_state(std::int64_t batch) const;

  models::LstmSpec spec;
  torch::nn::Embedding embedding{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear decoder{nullptr};
};

}  // namespace dlcbench::torch_backend
