#include "backends/reference/networks.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "backends/reference/activations.h"
#include "backends/reference/batch_norm.h"
#include "backends/reference/convolution.h"
#include "backends/reference/image.h"
#include "backends/reference/pooling.h"

namespace dlcbench::reference {
namespace {

using models::Activation;

// fcn5: Linear layers with the activation after every hidden one.
class MlpNetwork : public ClassifierNetwork {
 public:
  MlpNetwork(const models::MlpSpec& spec, std::int64_t batch) : activation_(spec.activation) {
    const auto& sizes = spec.layer_sizes;
    layers_.reserve(sizes.size() - 1);
    for (std::size_t i = 1; i < sizes.size(); ++i)
      layers_.emplace_back(parameters, fmt::format("fc{}", i), sizes[i - 1], sizes[i], batch, /*input_gradient=*/i > 1);
    hidden_sizes_.assign(sizes.begin() + 1, sizes.end() - 1);
    batch_ = batch;
  }

  float* forward(const float* examples) override {
    const float* x = examples;
    float* y = nullptr;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      y = layers_[i].forward(x);
      if (i + 1 < layers_.size()) activate(activation_, y, batch_ * hidden_sizes_[i]);
      x = y;
    }
    return y;
  }

  void backward(float* grad) override {
    for (std::size_t i = layers_.size(); i-- > 0;) {
      if (i + 1 < layers_.size()) activation_backward(activation_, layers_[i].output(), grad, batch_ * hidden_sizes_[i]);
      grad = layers_[i].backward(grad);
    }
  }

 private:
  Activation activation_;
  std::vector<Linear> layers_;
  std::vector<std::int64_t> hidden_sizes_;
  std::int64_t batch_ = 0;
};

// alexnet: stages of convolution, activation and pooling, then a Linear on
// the flattened (C, H, W) features.
class ConvNetwork : public ClassifierNetwork {
 public:
  ConvNetwork(const models::ConvNetSpec& spec, std::int64_t batch) : activation_(spec.activation) {
    input_shape_ = {spec.input_shape[0], batch, spec.input_shape[1], spec.input_shape[2]};
    input_ = Tensor({input_shape_.numel()});
    ImageShape shape = input_shape_;
    stages_.reserve(spec.stages.size());
    for (std::size_t i = 0; i < spec.stages.size(); ++i) {
      const auto& s = spec.stages[i];
      const ConvOptions options{.out_channels = s.out_channels, .kernel = s.kernel, .stride = s.stride,
                                .padding = s.padding, .bias = true};
      Conv2d conv(parameters, fmt::format("conv{}", i + 1), shape, options, workspace_, /*input_gradient=*/i > 0);
      const ImageShape conv_out = conv.output_shape();
      Pool2d pool(s.pool, conv_out, s.pool_kernel, s.pool_stride);
      shape = pool.output_shape();
      stages_.push_back({std::move(conv), std::move(pool), conv_out});
    }
    features_shape_ = shape;
    features_ = Tensor({shape.numel()});
    grad_features_ = Tensor({shape.numel()});
    fc_ = std::make_unique<Linear>(parameters, "fc", shape.channels * shape.plane(), spec.classes, batch, true);
  }

  float* forward(const float* examples) override {
    to_channel_major(examples, input_shape_, input_.data());
    const float* x = input_.data();
    for (auto& stage : stages_) {
      float* y = stage.conv.forward(x);
      activate(activation_, y, stage.conv_shape.numel());
      x = stage.pool.forward(y);
    }
    to_batch_major(x, features_shape_, features_.data());  // flatten as x.flatten(1) on [N, C, H, W]
    return fc_->forward(features_.data());
  }

  void backward(float* grad_scores) override {
    to_channel_major(fc_->backward(grad_scores), features_shape_, grad_features_.data());
    float* grad = grad_features_.data();
    for (std::size_t i = stages_.size(); i-- > 0;) {
      auto& stage = stages_[i];
      grad = stage.pool.backward(grad);
      activation_backward(activation_, stage.conv.output(), grad, stage.conv_shape.numel());
      grad = stage.conv.backward(grad);
    }
  }

 private:
  struct Stage {
    Conv2d conv;
    Pool2d pool;
    ImageShape conv_shape;
  };
  Activation activation_;
  Workspace workspace_;
  ImageShape input_shape_, features_shape_;
  Tensor input_, features_, grad_features_;
  std::vector<Stage> stages_;
  std::unique_ptr<Linear> fc_;
};

ConvOptions conv3x3(std::int64_t out_channels, std::int64_t stride) {
  return {.out_channels = out_channels, .kernel = 3, .stride = stride, .padding = 1, .bias = false};
}

// dlbench's ResNet block: conv - BN - ReLU - conv, add the shortcut, BN.
class BasicBlock {
 public:
  BasicBlock(ParameterList& params, const std::string& name, ImageShape in, std::int64_t out_channels,
             std::int64_t stride, Workspace& workspace)
      : in_(in),
        stride_(stride),
        conv1_(params, name + ".conv1", in, conv3x3(out_channels, stride), workspace, true),
        bn1_(params, name + ".bn1", conv1_.output_shape()),
        conv2_(params, name + ".conv2", conv1_.output_shape(), conv3x3(out_channels, 1), workspace, true),
        bn_out_(params, name + ".bn_out", conv2_.output_shape()),
        out_(conv2_.output_shape()) {}

  ImageShape output_shape() const { return out_; }

  float* forward(const float* x) {
    float* t = bn1_.forward(conv1_.forward(x));
    activate(Activation::kRelu, t, out_.numel());
    float* sum = conv2_.forward(t);
    add_shortcut(x, in_, stride_, sum, out_);
    return bn_out_.forward(sum);
  }

  // grad [out] is overwritten; returns the gradient of the block's input.
  float* backward(float* grad) {
    bn_out_.backward(grad);  // now the gradient of the sum, shared by both paths
    float* main = conv2_.backward(grad);
    activation_backward(Activation::kRelu, bn1_.output(), main, out_.numel());
    bn1_.backward(main);
    float* dx = conv1_.backward(main);
    add_shortcut_gradient(grad, out_, stride_, dx, in_);
    return dx;
  }

 private:
  ImageShape in_;
  std::int64_t stride_;
  Conv2d conv1_;
  BatchNorm2d bn1_;
  Conv2d conv2_;
  BatchNorm2d bn_out_;
  ImageShape out_;
};

// resnet56: a 3x3 convolution, BN and ReLU, the blocks (the first of every
// later stage halving the resolution), global average pooling, a Linear.
class ResNetwork : public ClassifierNetwork {
 public:
  ResNetwork(const models::ResNetSpec& spec, std::int64_t batch) {
    input_shape_ = {spec.input_shape[0], batch, spec.input_shape[1], spec.input_shape[2]};
    input_ = Tensor({input_shape_.numel()});
    stem_ = std::make_unique<Conv2d>(parameters, "conv1", input_shape_, conv3x3(spec.stage_channels.front(), 1),
                                     workspace_, false);
    ImageShape shape = stem_->output_shape();
    stem_bn_ = std::make_unique<BatchNorm2d>(parameters, "bn1", shape);
    blocks_.reserve(spec.stage_channels.size() * static_cast<std::size_t>(spec.blocks_per_stage));
    for (std::size_t stage = 0; stage < spec.stage_channels.size(); ++stage)
      for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b) {
        const std::int64_t stride = stage > 0 && b == 0 ? 2 : 1;
        blocks_.emplace_back(parameters, fmt::format("blocks.{}", blocks_.size()), shape, spec.stage_channels[stage],
                             stride, workspace_);
        shape = blocks_.back().output_shape();
      }
    pool_ = std::make_unique<GlobalAvgPool>(shape);
    fc_ = std::make_unique<Linear>(parameters, "fc", shape.channels, spec.classes, batch, true);
    stem_shape_ = stem_->output_shape();
  }

  float* forward(const float* examples) override {
    to_channel_major(examples, input_shape_, input_.data());
    float* x = stem_bn_->forward(stem_->forward(input_.data()));
    activate(Activation::kRelu, x, stem_shape_.numel());
    for (auto& block : blocks_) x = block.forward(x);
    return fc_->forward(pool_->forward(x));
  }

  void backward(float* grad_scores) override {
    float* grad = pool_->backward(fc_->backward(grad_scores));
    for (std::size_t i = blocks_.size(); i-- > 0;) grad = blocks_[i].backward(grad);
    activation_backward(Activation::kRelu, stem_bn_->output(), grad, stem_shape_.numel());
    stem_bn_->backward(grad);
    stem_->backward(grad);
  }

 private:
  Workspace workspace_;
  ImageShape input_shape_, stem_shape_;
  Tensor input_;
  std::unique_ptr<Conv2d> stem_;
  std::unique_ptr<BatchNorm2d> stem_bn_;
  std::vector<BasicBlock> blocks_;
  std::unique_ptr<GlobalAvgPool> pool_;
  std::unique_ptr<Linear> fc_;
};

}  // namespace

std::unique_ptr<ClassifierNetwork> make_classifier(const models::ModelSpec& spec, std::int64_t batch) {
  if (const auto* mlp = std::get_if<models::MlpSpec>(&spec.architecture))
    return std::make_unique<MlpNetwork>(*mlp, batch);
  if (const auto* conv = std::get_if<models::ConvNetSpec>(&spec.architecture))
    return std::make_unique<ConvNetwork>(*conv, batch);
  if (const auto* res = std::get_if<models::ResNetSpec>(&spec.architecture))
    return std::make_unique<ResNetwork>(*res, batch);
  throw std::invalid_argument(spec.name + " is not a classifier");
}

namespace {

std::vector<LstmLayer> make_lstm_layers(ParameterList& params, const models::LstmSpec& spec, std::int64_t batch) {
  std::vector<LstmLayer> layers;
  layers.reserve(static_cast<std::size_t>(spec.layers));
  for (int k = 0; k < spec.layers; ++k)
    layers.emplace_back(params, k, k == 0 ? spec.embedding : spec.hidden, spec.hidden, spec.sequence, batch,
                        /*input_gradient=*/true);
  return layers;
}

}  // namespace

// Members are built in declaration order, which is the layout's order of
// the parameters: embedding, LSTM layers, decoder.
LanguageModel::LanguageModel(const models::LstmSpec& spec, std::int64_t batch)
    : spec_(spec),
      batch_(batch),
      embedding_(parameters, "embedding", spec.vocabulary, spec.embedding, spec.sequence * batch),
      layers_(make_lstm_layers(parameters, spec, batch)),
      decoder_(parameters, "decoder", spec.hidden, spec.vocabulary, spec.sequence * batch, true),
      h_({spec.layers, batch, spec.hidden}),
      c_({spec.layers, batch, spec.hidden}) {}

float* LanguageModel::forward(const std::int64_t* tokens) {
  const float* x = embedding_.forward(tokens);
  const std::int64_t state = batch_ * spec_.hidden;
  for (std::size_t k = 0; k < layers_.size(); ++k)
    x = layers_[k].forward(x, h_.data() + static_cast<std::int64_t>(k) * state,
                           c_.data() + static_cast<std::int64_t>(k) * state);
  return decoder_.forward(x);
}

void LanguageModel::backward(float* grad_scores) {
  const float* grad = decoder_.backward(grad_scores);
  for (std::size_t k = layers_.size(); k-- > 0;) grad = layers_[k].backward(grad);
  embedding_.backward(grad);
}

void LanguageModel::reset_state() {
  std::fill(h_.values.begin(), h_.values.end(), 0.0f);
  std::fill(c_.values.begin(), c_.values.end(), 0.0f);
}

}  // namespace dlcbench::reference
