// The trainable tensors of a network, in one layout every back end shares:
// PyTorch's names, shapes, memory layout (row-major) and order. Linear
// weights are [out, in]; convolution weights [out, in, kh, kw]; batch norm
// has weight (scale) and bias (shift); the LSTM has, per layer k,
// weight_ih_lk [4H, in], weight_hh_lk [4H, H], bias_ih_lk [4H] and
// bias_hh_lk [4H] with the gates in the order input, forget, cell, output.
// The agreement tests move weights between back ends through this layout;
// the non-LibTorch back ends also start from initial_parameters().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/models/model_spec.h"

namespace dlcbench {

struct ParameterTensor {
  std::string name;                 // e.g. "fc1.weight", "blocks.3.bn_out.bias", "lstm.weight_hh_l1"
  std::vector<std::int64_t> shape;
  std::vector<float> values;        // row-major; empty in a layout
  std::int64_t numel() const;
};
using ParameterSet = std::vector<ParameterTensor>;

// Names and shapes of `model`'s parameters in order, values empty:
//   MLP:     fc1.weight, fc1.bias, fc2.weight, ...
//   ConvNet: conv1.weight, conv1.bias, ..., fc.weight, fc.bias
//   ResNet:  conv1.weight, bn1.weight, bn1.bias, then per block j
//            blocks.j.conv1.weight, blocks.j.bn1.weight, blocks.j.bn1.bias,
//            blocks.j.conv2.weight, blocks.j.bn_out.weight, blocks.j.bn_out.bias,
//            then fc.weight, fc.bias (convolutions have no bias)
//   LSTM:    embedding.weight [V, E], lstm.{weight_ih,weight_hh,bias_ih,bias_hh}_l0,
//            ..._l1, ..., decoder.weight [V, H], decoder.bias [V]
ParameterSet parameter_layout(const models::ModelSpec& model);

// Throws std::invalid_argument naming the first tensor whose name, shape or
// number of values differs from the layout.
void check_parameters(const ParameterSet& given, const models::ModelSpec& model);

// The model's initial weights as its ModelSpec::init says (Xavier uniform,
// He normal fan-out for ReLU convolutions, or uniform in +-range for the
// LSTM; biases 0, batch norm scale 1 and shift 0), from a seeded generator
// of our own, so a seed gives the same weights on every machine.
ParameterSet initial_parameters(const models::ModelSpec& model, std::uint64_t seed);

// Total number of values.
std::int64_t parameter_count(const ParameterSet& parameters);

}  // namespace dlcbench
