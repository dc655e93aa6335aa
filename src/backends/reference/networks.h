// The networks of src/workloads/models on the reference engine: the network
// walk (backends/network_walk) over this engine's layers, in host memory with
// images channel-major (image.h). Each is built for a fixed batch size:
// every buffer a training step needs is allocated then, none during the step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/network_walk/engine.h"
#include "backends/network_walk/language_model.h"
#include "backends/reference/activations.h"
#include "backends/reference/batch_norm.h"
#include "backends/reference/convolution.h"
#include "backends/reference/embedding.h"
#include "backends/reference/image.h"
#include "backends/reference/linear.h"
#include "backends/reference/lstm.h"
#include "backends/reference/pooling.h"
#include "backends/reference/tensor.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::reference {

// The reference engine's side of the network walk (network_walk/engine.h):
// each kind of layer with the way to make one. The layers add their
// parameters to *params.
struct Layers {
  ParameterList* params;

  using Shape = ImageShape;
  static ImageShape image_shape(std::int64_t batch, const std::vector<std::int64_t>& chw) {
    return {.channels = chw[0], .batch = batch, .height = chw[1], .width = chw[2]};
  }
  static walk::ImageSize size(ImageShape s) { return {s.channels, s.height, s.width}; }

  using Linear = reference::Linear;
  Linear linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows,
                bool input_gradient) const {
    return Linear(*params, name, in, out, rows, input_gradient);
  }

  using ConvOptions = reference::ConvOptions;
  using ConvWorkspace = Workspace;
  using Conv2d = reference::Conv2d;
  Conv2d conv2d(const std::string& name, ImageShape in, ConvOptions options, Workspace& workspace,
                bool input_gradient) const {
    return Conv2d(*params, name, in, options, workspace, input_gradient);
  }
  static void allocate(Workspace&) {}  // reserve() has sized it already

  using BatchNorm2d = reference::BatchNorm2d;
  BatchNorm2d batch_norm(const std::string& name, ImageShape shape) const { return BatchNorm2d(*params, name, shape); }

  using Pool2d = reference::Pool2d;
  static Pool2d pool(models::PoolKind kind, ImageShape in, std::int64_t kernel, std::int64_t stride) {
    return Pool2d(kind, in, kernel, stride);
  }
  using GlobalAvgPool = reference::GlobalAvgPool;
  static GlobalAvgPool global_avg_pool(ImageShape in) { return GlobalAvgPool(in); }

  // Examples are converted to channel-major once, and back where the
  // classifier head flattens them.
  using ImageInput = ChannelMajorInput;
  static ChannelMajorInput image_input(ImageShape shape) { return ChannelMajorInput(shape); }
  using Flatten = reference::Flatten;
  static Flatten flatten(ImageShape shape) { return Flatten(shape); }

  static void activate(models::Activation kind, float* values, std::int64_t n) { reference::activate(kind, values, n); }
  static void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n) {
    reference::activation_backward(kind, activated, grad, n);
  }
  static void add_shortcut(const float* x, ImageShape in, std::int64_t stride, float* y, ImageShape out) {
    reference::add_shortcut(x, in, stride, y, out);
  }
  static void add_shortcut_gradient(const float* dy, ImageShape out, std::int64_t stride, float* dx, ImageShape in) {
    reference::add_shortcut_gradient(dy, out, stride, dx, in);
  }

  using Embedding = reference::Embedding;
  Embedding embedding(const std::string& name, std::int64_t vocabulary, std::int64_t dim, std::int64_t rows) const {
    return Embedding(*params, name, vocabulary, dim, rows);
  }
  using LstmLayer = reference::LstmLayer;
  LstmLayer lstm(int index, std::int64_t input_size, std::int64_t hidden, std::int64_t steps, std::int64_t batch,
                 bool input_gradient) const {
    return LstmLayer(*params, index, input_size, hidden, steps, batch, input_gradient);
  }
  using State = Tensor;
  static Tensor state(std::int64_t count) { return Tensor({count}); }
  static void zero(Tensor& state) { std::fill(state.values.begin(), state.values.end(), 0.0f); }
};

using ClassifierNetwork = walk::ClassifierNetwork;
using LanguageModel = walk::LanguageModel<Layers>;

// The network adds its parameters to `params` (which must outlive it) in the
// shared layout's order.
std::unique_ptr<ClassifierNetwork> make_classifier(ParameterList& params, const models::ModelSpec& spec,
                                                   std::int64_t batch);
std::unique_ptr<LanguageModel> make_language_model(ParameterList& params, const models::LstmSpec& spec,
                                                   std::int64_t batch);

}  // namespace dlcbench::reference
