// The three classifiers of the suite (fcn5, alexnet, resnet56) written once
// over an engine's layers (engine.h), each built for a fixed batch size with
// every buffer a training step needs: nothing is allocated during a step.
// The layers are made in the order of PyTorch's modules, which is the order
// of the shared parameter layout.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "backends/network_walk/engine.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::walk {

// fcn5: Linear layers with the activation after every hidden one.
template <class E>
class Mlp final : public ClassifierNetwork {
 public:
  Mlp(const E& engine, const models::MlpSpec& spec, std::int64_t batch)
      : engine_(engine), activation_(spec.activation), batch_(batch) {
    const auto& sizes = spec.layer_sizes;
    layers_.reserve(sizes.size() - 1);
    for (std::size_t i = 1; i < sizes.size(); ++i)
      layers_.push_back(engine.linear(fmt::format("fc{}", i), sizes[i - 1], sizes[i], batch, /*input_gradient=*/i > 1));
    hidden_sizes_.assign(sizes.begin() + 1, sizes.end() - 1);
  }

  float* forward(const float* examples) override {
    const float* x = examples;
    float* y = nullptr;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      y = layers_[i].forward(x);
      if (i + 1 < layers_.size()) engine_.activate(activation_, y, batch_ * hidden_sizes_[i]);
      x = y;
    }
    return y;
  }

  void backward(float* grad) override {
    for (std::size_t i = layers_.size(); i-- > 0;) {
      if (i + 1 < layers_.size())
        engine_.activation_backward(activation_, layers_[i].output(), grad, batch_ * hidden_sizes_[i]);
      grad = layers_[i].backward(grad);
    }
  }

 private:
  E engine_;
  models::Activation activation_;
  std::int64_t batch_;
  std::vector<typename E::Linear> layers_;
  std::vector<std::int64_t> hidden_sizes_;
};

// alexnet: stages of convolution, activation and pooling, then a Linear on
// the flattened (C, H, W) features.
template <class E>
class ConvNet final : public ClassifierNetwork {
  using Shape = typename E::Shape;

 public:
  ConvNet(const E& engine, const models::ConvNetSpec& spec, std::int64_t batch)
      : engine_(engine),
        activation_(spec.activation),
        input_shape_(E::image_shape(batch, spec.input_shape)),
        input_(engine.image_input(input_shape_)),
        stages_(make_stages(engine, spec, input_shape_, workspace_)),
        flatten_(engine.flatten(features_shape())),
        fc_(engine.linear("fc", features(E::size(features_shape())), spec.classes, batch, /*input_gradient=*/true)) {
    engine.allocate(workspace_);
  }

  float* forward(const float* examples) override {
    const float* x = input_.forward(examples);
    for (auto& stage : stages_) {
      float* y = stage.conv.forward(x);
      engine_.activate(activation_, y, stage.conv.output_shape().numel());
      x = stage.pool.forward(y);
    }
    return fc_.forward(flatten_.forward(x));  // x.flatten(1)
  }

  void backward(float* grad_scores) override {
    float* grad = flatten_.backward(fc_.backward(grad_scores));
    for (auto stage = stages_.rbegin(); stage != stages_.rend(); ++stage) {
      grad = stage->pool.backward(grad);
      engine_.activation_backward(activation_, stage->conv.output(), grad, stage->conv.output_shape().numel());
      grad = stage->conv.backward(grad);  // nullptr from the first: the examples need no gradient
    }
  }

 private:
  struct Stage {
    typename E::Conv2d conv;
    typename E::Pool2d pool;
  };

  static std::int64_t features(ImageSize s) { return s.channels * s.height * s.width; }

  static std::vector<Stage> make_stages(const E& engine, const models::ConvNetSpec& spec, Shape shape,
                                        typename E::ConvWorkspace& workspace) {
    std::vector<Stage> stages;
    stages.reserve(spec.stages.size());
    for (std::size_t i = 0; i < spec.stages.size(); ++i) {
      const auto& s = spec.stages[i];
      auto conv = engine.conv2d(fmt::format("conv{}", i + 1), shape,
                                {.out_channels = s.out_channels, .kernel = s.kernel, .stride = s.stride,
                                 .padding = s.padding, .bias = true},
                                workspace, /*input_gradient=*/i > 0);
      auto pool = engine.pool(s.pool, conv.output_shape(), s.pool_kernel, s.pool_stride);
      shape = pool.output_shape();
      stages.push_back({std::move(conv), std::move(pool)});
    }
    return stages;
  }

  Shape features_shape() const { return stages_.empty() ? input_shape_ : stages_.back().pool.output_shape(); }

  E engine_;
  models::Activation activation_;
  typename E::ConvWorkspace workspace_;  // before the convolutions, which reserve their share in it
  Shape input_shape_;
  typename E::ImageInput input_;
  std::vector<Stage> stages_;
  typename E::Flatten flatten_;
  typename E::Linear fc_;
};

template <class E>
typename E::ConvOptions conv3x3(std::int64_t out_channels, std::int64_t stride) {
  return {.out_channels = out_channels, .kernel = 3, .stride = stride, .padding = 1, .bias = false};
}

// ResNet's option-A shortcut subsamples the input to the output's size and
// only adds channels (zeros); any other pair of shapes is a wrong network.
inline void check_shortcut(const std::string& block, ImageSize in, ImageSize out, std::int64_t stride) {
  if (out.channels < in.channels || (in.height + stride - 1) / stride != out.height ||
      (in.width + stride - 1) / stride != out.width)
    throw std::logic_error(fmt::format("{}: the shortcut cannot map {}x{}x{} onto {}x{}x{}", block, in.channels,
                                       in.height, in.width, out.channels, out.height, out.width));
}

// dlbench's ResNet block (models::ResNetSpec): conv - BN - ReLU - conv, add
// the shortcut, BN.
template <class E>
class ResidualBlock {
  using Shape = typename E::Shape;

 public:
  ResidualBlock(const E& engine, const std::string& name, Shape in, std::int64_t out_channels, std::int64_t stride,
                typename E::ConvWorkspace& workspace)
      : engine_(engine),
        in_(in),
        stride_(stride),
        conv1_(engine.conv2d(name + ".conv1", in, conv3x3<E>(out_channels, stride), workspace, true)),
        bn1_(engine.batch_norm(name + ".bn1", conv1_.output_shape())),
        conv2_(engine.conv2d(name + ".conv2", conv1_.output_shape(), conv3x3<E>(out_channels, 1), workspace, true)),
        bn_out_(engine.batch_norm(name + ".bn_out", conv2_.output_shape())),
        out_(conv2_.output_shape()) {
    check_shortcut(name, E::size(in_), E::size(out_), stride);
  }

  Shape output_shape() const { return out_; }

  float* forward(const float* x) {
    float* t = bn1_.forward(conv1_.forward(x));
    engine_.activate(models::Activation::kRelu, t, out_.numel());
    float* sum = conv2_.forward(t);
    engine_.add_shortcut(x, in_, stride_, sum, out_);
    return bn_out_.forward(sum);
  }

  // grad may be overwritten; returns the gradient of the block's input.
  float* backward(float* grad) {
    float* grad_sum = bn_out_.backward(grad);  // shared by both paths
    float* main = conv2_.backward(grad_sum);
    engine_.activation_backward(models::Activation::kRelu, bn1_.output(), main, out_.numel());
    float* dx = conv1_.backward(bn1_.backward(main));
    engine_.add_shortcut_gradient(grad_sum, out_, stride_, dx, in_);
    return dx;
  }

 private:
  E engine_;
  Shape in_;
  std::int64_t stride_;
  typename E::Conv2d conv1_;
  typename E::BatchNorm2d bn1_;
  typename E::Conv2d conv2_;
  typename E::BatchNorm2d bn_out_;
  Shape out_;
};

// resnet56: a 3x3 convolution, BN and ReLU, the blocks (the first of every
// later stage halving the resolution), global average pooling, a Linear.
template <class E>
class ResNet final : public ClassifierNetwork {
  using Shape = typename E::Shape;

 public:
  ResNet(const E& engine, const models::ResNetSpec& spec, std::int64_t batch)
      : engine_(engine),
        input_shape_(E::image_shape(batch, spec.input_shape)),
        input_(engine.image_input(input_shape_)),
        stem_(engine.conv2d("conv1", input_shape_, conv3x3<E>(spec.stage_channels.front(), 1), workspace_, false)),
        stem_bn_(engine.batch_norm("bn1", stem_.output_shape())),
        blocks_(make_blocks(engine, spec, stem_.output_shape(), workspace_)),
        pool_(engine.global_avg_pool(features_shape())),
        fc_(engine.linear("fc", E::size(features_shape()).channels, spec.classes, batch, /*input_gradient=*/true)) {
    engine.allocate(workspace_);
  }

  float* forward(const float* examples) override {
    float* x = stem_bn_.forward(stem_.forward(input_.forward(examples)));
    engine_.activate(models::Activation::kRelu, x, stem_.output_shape().numel());
    for (auto& block : blocks_) x = block.forward(x);
    return fc_.forward(pool_.forward(x));  // the pooled features are already rows [N, C]
  }

  void backward(float* grad_scores) override {
    float* grad = pool_.backward(fc_.backward(grad_scores));
    for (auto block = blocks_.rbegin(); block != blocks_.rend(); ++block) grad = block->backward(grad);
    engine_.activation_backward(models::Activation::kRelu, stem_bn_.output(), grad, stem_.output_shape().numel());
    stem_.backward(stem_bn_.backward(grad));
  }

 private:
  static std::vector<ResidualBlock<E>> make_blocks(const E& engine, const models::ResNetSpec& spec, Shape shape,
                                                   typename E::ConvWorkspace& workspace) {
    std::vector<ResidualBlock<E>> blocks;
    blocks.reserve(spec.stage_channels.size() * static_cast<std::size_t>(spec.blocks_per_stage));
    for (std::size_t stage = 0; stage < spec.stage_channels.size(); ++stage)
      for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b) {
        const std::int64_t stride = stage > 0 && b == 0 ? 2 : 1;
        blocks.emplace_back(engine, fmt::format("blocks.{}", blocks.size()), shape, spec.stage_channels[stage], stride,
                            workspace);
        shape = blocks.back().output_shape();
      }
    return blocks;
  }

  Shape features_shape() const { return blocks_.empty() ? stem_.output_shape() : blocks_.back().output_shape(); }

  E engine_;
  typename E::ConvWorkspace workspace_;  // before the convolutions, which reserve their share in it
  Shape input_shape_;
  typename E::ImageInput input_;
  typename E::Conv2d stem_;
  typename E::BatchNorm2d stem_bn_;
  std::vector<ResidualBlock<E>> blocks_;
  typename E::GlobalAvgPool pool_;
  typename E::Linear fc_;
};

template <class E>
std::unique_ptr<ClassifierNetwork> make_classifier(const E& engine, const models::ModelSpec& spec,
                                                   std::int64_t batch) {
  if (const auto* mlp = std::get_if<models::MlpSpec>(&spec.architecture))
    return std::make_unique<Mlp<E>>(engine, *mlp, batch);
  if (const auto* conv = std::get_if<models::ConvNetSpec>(&spec.architecture))
    return std::make_unique<ConvNet<E>>(engine, *conv, batch);
  if (const auto* res = std::get_if<models::ResNetSpec>(&spec.architecture))
    return std::make_unique<ResNet<E>>(engine, *res, batch);
  throw std::invalid_argument(spec.name + " is not a classifier");
}

}  // namespace dlcbench::walk
