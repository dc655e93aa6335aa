#include "backends/torch/torch_inference.h"

#include <algorithm>
#include <memory>
#include <variant>
#include <vector>

#include <torch/torch.h>

#include "backends/torch/networks.h"

namespace dlcbench::torch_backend {

TorchInference make_torch_inference(const models::ModelSpec& spec) {
  at::set_num_threads(1);
  TorchInference made;
  made.library = std::string("LibTorch ") + TORCH_VERSION;
  if (const auto* lstm = std::get_if<models::LstmSpec>(&spec.architecture)) {
    auto net = std::make_shared<LanguageModel>(*lstm);
    net->eval();
    const std::int64_t sequence = lstm->sequence, vocabulary = lstm->vocabulary;
    made.input_floats = static_cast<std::size_t>(sequence);
    made.infer = [net, sequence, vocabulary](const float* input) {
      torch::InferenceMode guard;
      std::vector<std::int64_t> tokens(static_cast<std::size_t>(sequence));
      for (std::size_t t = 0; t < tokens.size(); ++t)
        tokens[t] = std::clamp<std::int64_t>(static_cast<std::int64_t>(input[t] * static_cast<float>(vocabulary)), 0,
                                             vocabulary - 1);
      auto x = torch::from_blob(tokens.data(), {sequence, 1}, torch::kInt64);
      auto scores = net->forward(x, net->initial_state(1)).first;
      // The next word after the sequence's last.
      return static_cast<std::int32_t>(scores[sequence - 1].argmax().item<std::int64_t>());
    };
    return made;
  }
  auto net = make_classifier(spec);
  net->eval();
  std::vector<std::int64_t> shape = {1};
  const auto example = spec.input_shape();
  shape.insert(shape.end(), example.begin(), example.end());
  std::size_t floats = 1;
  for (auto d : example) floats *= static_cast<std::size_t>(d);
  made.input_floats = floats;
  made.infer = [net, shape](const float* input) {
    torch::InferenceMode guard;
    auto x = torch::from_blob(const_cast<float*>(input), shape);
    return static_cast<std::int32_t>(net->forward(x).argmax(1).item<std::int64_t>());
  };
  return made;
}

}  // namespace dlcbench::torch_backend
