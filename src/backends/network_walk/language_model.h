// The lstm workload's language model written once over an engine's layers
// (engine.h): embedding, stacked LSTM layers and a linear decoder to the
// vocabulary, with the hidden state carried from one window to the next.
// Built for a fixed batch, with every buffer a training step needs.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/network_walk/engine.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::walk {

template <class E>
class LanguageModel {
 public:
  // The members are made in the layout's order of the parameters:
  // embedding, LSTM layers, decoder. The state starts at zero.
  LanguageModel(const E& engine, const models::LstmSpec& spec, std::int64_t batch)
      : engine_(engine),
        state_size_(batch * spec.hidden),
        embedding_(engine.embedding("embedding", spec.vocabulary, spec.embedding, spec.sequence * batch)),
        layers_(make_layers(engine, spec, batch)),
        decoder_(engine.linear("decoder", spec.hidden, spec.vocabulary, spec.sequence * batch, true)),
        h_(engine.state(spec.layers * state_size_)),
        c_(engine.state(spec.layers * state_size_)) {
    reset_state();
  }

  // tokens [sequence, batch] in the engine's memory -> scores
  // [sequence * batch, vocabulary]. Layer k starts from its state [batch,
  // hidden] at offset k of h and c and leaves its final state there.
  float* forward(const std::int64_t* tokens) {
    const float* x = embedding_.forward(tokens);
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      const std::int64_t at = static_cast<std::int64_t>(k) * state_size_;
      x = layers_[k].forward(x, h_.data() + at, c_.data() + at);
    }
    return decoder_.forward(x);
  }

  // Back-propagation through the window only: the state it started from is
  // a constant.
  void backward(float* grad_scores) {
    const float* grad = decoder_.backward(grad_scores);
    for (std::size_t k = layers_.size(); k-- > 0;) grad = layers_[k].backward(grad);
    embedding_.backward(grad);
  }

  // Zero hidden and cell state, for the start of a pass over the text.
  void reset_state() {
    engine_.zero(h_);
    engine_.zero(c_);
  }

 private:
  static std::vector<typename E::LstmLayer> make_layers(const E& engine, const models::LstmSpec& spec,
                                                         std::int64_t batch) {
    std::vector<typename E::LstmLayer> layers;
    layers.reserve(static_cast<std::size_t>(spec.layers));
    for (int k = 0; k < spec.layers; ++k)
      layers.push_back(engine.lstm(k, k == 0 ? spec.embedding : spec.hidden, spec.hidden, spec.sequence, batch,
                                   /*input_gradient=*/true));
    return layers;
  }

  E engine_;
  std::int64_t state_size_;  // batch * hidden: one layer's h or c
  typename E::Embedding embedding_;
  std::vector<typename E::LstmLayer> layers_;
  typename E::Linear decoder_;
  typename E::State h_, c_;  // [layers, batch, hidden]
};

}  // namespace dlcbench::walk
