// The suite's networks as oneDNN programs, built once for one batch size
// from their ModelSpec (workloads/models), and the conversion of their
// parameters to and from the shared layout.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/onednn/lstm_layer.h"
#include "backends/onednn/tensor.h"
#include "backends/parameters.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::onednn {

// A classifier (MLP, ConvNet or ResNet): `input` is the batch [batch,
// example shape...] row-major, pointed at the caller's memory before each
// step; `scores` [batch, classes].
struct ClassifierNetwork {
  Program program;
  memory input;
  Activation scores;
};
std::unique_ptr<ClassifierNetwork> build_classifier(Context& context, const models::ModelSpec& model,
                                                    std::int64_t batch);

// The LSTM language model: embedding, stacked LSTM layers (one primitive
// each), decoder over all positions; `scores` [sequence * batch, vocabulary].
// `tokens` is set to the window's input [sequence, batch] before each step.
struct LanguageModelNetwork {
  Program program;
  const std::int64_t* tokens = nullptr;
  std::vector<LstmLayer> layers;
  Activation scores;
};
std::unique_ptr<LanguageModelNetwork> build_language_model(Context& context, const models::LstmSpec& spec,
                                                           std::int64_t batch);

// The parameters in the shared layout, and replacing them (after
// check_parameters); momentum buffers are zeroed.
ParameterSet read_parameters(Context& context, const std::deque<Parameter>& parameters);
void write_parameters(Context& context, std::deque<Parameter>& parameters, const ParameterSet& values);

}  // namespace dlcbench::onednn
