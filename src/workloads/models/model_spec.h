// Network definitions as plain data: layer shapes and training
// hyper-parameters, shared by every back end. A back end builds exactly the
// network described here; the parameter count in its fingerprint proves it.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/data_need.h"

namespace dlcbench::models {

enum class Activation { kSigmoid, kRelu };

// How weights start; biases start at zero unless said otherwise.
enum class WeightInit {
  // Glorot (Xavier) uniform: what the Caffe and CNTK configurations of
  // dlbench use for FCN-5; with the fan-in default a 4-layer sigmoid network
  // sits on its loss plateau for hundreds of steps.
  kXavierUniform,
  // He (Kaiming) normal, fan-out, for the convolutions of ReLU networks (He
  // et al.); Xavier uniform for their fully connected layer; batch norm
  // scale 1, shift 0.
  kKaimingNormal,
  // Uniform in [-range, range], Zaremba et al.'s LSTM language model.
  kUniform,
};

struct SgdSpec {
  double learning_rate = 0.01;
  double momentum = 0.0;
  double clip_grad_norm = 0.0;  // 0: no clipping
};

// A multi-layer perceptron: layer_sizes[0] inputs, layer_sizes.back()
// classes, `activation` after every hidden layer, softmax cross-entropy.
struct MlpSpec {
  std::vector<std::int64_t> layer_sizes;
  Activation activation = Activation::kSigmoid;
};

enum class PoolKind { kMax, kAverage };

// One convolution stage: convolution (square kernel, bias), activation,
// then pooling (square window, floor rounding, no padding).
struct ConvStage {
  std::int64_t out_channels = 0, kernel = 0, stride = 1, padding = 0;
  PoolKind pool = PoolKind::kMax;
  std::int64_t pool_kernel = 3, pool_stride = 2;
};

// Convolution stages, flatten, one fully connected layer to the classes.
struct ConvNetSpec {
  std::vector<std::int64_t> input_shape;  // {channels, height, width}
  std::vector<ConvStage> stages;
  Activation activation = Activation::kRelu;
  std::int64_t classes = 10;
};

// The CIFAR ResNet of He et al. (2016), 6n+2 layers: a 3x3 convolution to
// stage_channels[0], three stages of n basic blocks (the first block of the
// later stages halves the resolution), global average pooling, a fully
// connected layer. Convolutions have no bias (batch norm follows).
// Shortcuts are identities, zero-padded in channels and subsampled where the
// shape changes (option A), so they add no parameters.
// Block, as dlbench's NetworksConfigsDoc.txt specifies it (after gcr's
// torch-residual-networks, "batch norm after add", with the final ReLU
// removed): conv3x3 - BN - ReLU - conv3x3, add the shortcut, BN.
struct ResNetSpec {
  std::vector<std::int64_t> input_shape;
  std::int64_t blocks_per_stage = 9;
  std::vector<std::int64_t> stage_channels;
  std::int64_t classes = 10;
};

// A word-level LSTM language model (Zaremba et al. 2014): embedding,
// stacked LSTM layers, a linear decoder to the vocabulary, cross-entropy on
// the next word, truncated back-propagation through `sequence` steps with
// the hidden state carried between batches.
struct LstmSpec {
  std::int64_t vocabulary = 10000;
  std::int64_t embedding = 256;
  std::int64_t hidden = 256;
  std::int64_t layers = 2;
  std::int64_t sequence = 32;
  double init_range = 0.1;
};

using Architecture = std::variant<MlpSpec, ConvNetSpec, ResNetSpec, LstmSpec>;

// One layer as `dlcbench list --models` shows it.
struct Layer {
  std::string name;         // "fc1", "stage2.1"
  std::string description;  // "linear 784 -> 2048, sigmoid"
  std::int64_t parameters = 0;
};

struct ModelSpec {
  std::string name;
  Architecture architecture;
  WeightInit init = WeightInit::kXavierUniform;
  SgdSpec optimizer;
  std::string dataset;             // data set it trains on
  int default_batch_cpu = 64;
  int default_batch_gpu = 128;

  std::int64_t parameter_count() const;
  // Multiply-adds of convolution, dense and recurrent layers (2 FLOPs each)
  // for one forward, backward and update step, per example (per sequence of
  // `sequence` tokens for the LSTM). Backward is counted as twice the
  // forward (gradients of inputs and of weights); element-wise layers,
  // pooling and the update are left out.
  double training_flops_per_example() const;
  // Each layer with its output shape and parameters, for `dlcbench list --models`.
  std::vector<Layer> layers() const;
  // Shape of one example as the back ends consume it, e.g. {784} or {3,32,32}.
  std::vector<std::int64_t> input_shape() const;
  // What the data loaders need to know of it (core/data_need.h).
  DataNeed data_need() const;
  // Classes of a classifier, or the vocabulary of a language model.
  std::int64_t outputs() const;
  int default_batch(const std::string& device) const {
    return device == "gpu" ? default_batch_gpu : default_batch_cpu;
  }
};

}  // namespace dlcbench::models
