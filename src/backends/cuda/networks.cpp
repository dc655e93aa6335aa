#include "backends/cuda/networks.h"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "backends/cuda/batch_norm.h"
#include "backends/cuda/convolution.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pooling.h"

namespace dlcbench::cuda {
namespace {

using models::Activation;

math::ImageDims dims(ImageShape s) { return {s.c, s.h, s.w}; }

// fcn5: Linear layers with the activation after every hidden one.
class MlpNetwork : public ClassifierNetwork {
 public:
  MlpNetwork(const GpuContext& gpu, DeviceParameters& params, const models::MlpSpec& spec, std::int64_t batch)
      : gpu_(&gpu), activation_(spec.activation), batch_(batch) {
    const auto& sizes = spec.layer_sizes;
    layers_.reserve(sizes.size() - 1);
    for (std::size_t i = 1; i < sizes.size(); ++i)
      layers_.emplace_back(gpu, params, fmt::format("fc{}", i), sizes[i - 1], sizes[i], batch,
                           /*input_gradient=*/i > 1);
    hidden_sizes_.assign(sizes.begin() + 1, sizes.end() - 1);
  }

  float* forward(const float* examples) override {
    const float* x = examples;
    float* y = nullptr;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      y = layers_[i].forward(x);
      if (i + 1 < layers_.size()) kernels::activate(activation_, y, batch_ * hidden_sizes_[i], gpu_->stream());
      x = y;
    }
    return y;
  }

  void backward(float* grad) override {
    for (std::size_t i = layers_.size(); i-- > 0;) {
      if (i + 1 < layers_.size())
        kernels::activation_backward(activation_, layers_[i].output(), grad, batch_ * hidden_sizes_[i],
                                     gpu_->stream());
      grad = layers_[i].backward(grad);
    }
  }

 private:
  const GpuContext* gpu_;
  Activation activation_;
  std::int64_t batch_;
  std::vector<Linear> layers_;
  std::vector<std::int64_t> hidden_sizes_;
};

// alexnet: stages of convolution, activation and pooling, then a Linear on
// the flattened (C, H, W) features.
class ConvNetwork : public ClassifierNetwork {
 public:
  ConvNetwork(const GpuContext& gpu, DeviceParameters& params, const models::ConvNetSpec& spec, std::int64_t batch)
      : gpu_(&gpu), activation_(spec.activation) {
    ImageShape shape{batch, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]};
    stages_.reserve(spec.stages.size());
    for (std::size_t i = 0; i < spec.stages.size(); ++i) {
      const auto& s = spec.stages[i];
      const ConvOptions options{.out_channels = s.out_channels, .kernel = s.kernel, .stride = s.stride,
                                .padding = s.padding, .bias = true};
      Conv2d conv(gpu, params, fmt::format("conv{}", i + 1), shape, options, workspace_, /*input_gradient=*/i > 0);
      const ImageShape conv_out = conv.output_shape();
      Pool2d pool(gpu, s.pool, conv_out, s.pool_kernel, s.pool_kernel, s.pool_stride);
      shape = pool.output_shape();
      stages_.push_back({std::move(conv), std::move(pool), conv_out});
    }
    fc_ = std::make_unique<Linear>(gpu, params, "fc", shape.c * shape.plane(), spec.classes, batch, true);
    workspace_.allocate();
  }

  float* forward(const float* examples) override {
    const float* x = examples;
    for (auto& stage : stages_) {
      float* y = stage.conv.forward(x);
      kernels::activate(activation_, y, stage.conv_shape.numel(), gpu_->stream());
      x = stage.pool.forward(y);
    }
    return fc_->forward(x);  // NCHW is already x.flatten(1)
  }

  void backward(float* grad_scores) override {
    float* grad = fc_->backward(grad_scores);
    for (std::size_t i = stages_.size(); i-- > 0;) {
      auto& stage = stages_[i];
      grad = stage.pool.backward(grad);
      kernels::activation_backward(activation_, stage.conv.output(), grad, stage.conv_shape.numel(), gpu_->stream());
      grad = stage.conv.backward(grad);
    }
  }

 private:
  struct Stage {
    Conv2d conv;
    Pool2d pool;
    ImageShape conv_shape;
  };
  const GpuContext* gpu_;
  Activation activation_;
  ConvWorkspace workspace_;
  std::vector<Stage> stages_;
  std::unique_ptr<Linear> fc_;
};

ConvOptions conv3x3(std::int64_t out_channels, std::int64_t stride) {
  return {.out_channels = out_channels, .kernel = 3, .stride = stride, .padding = 1, .bias = false};
}

// dlbench's ResNet block: conv - BN - ReLU - conv, add the shortcut, BN.
class BasicBlock {
 public:
  BasicBlock(const GpuContext& gpu, DeviceParameters& params, const std::string& name, ImageShape in,
             std::int64_t out_channels, std::int64_t stride, ConvWorkspace& workspace)
      : gpu_(&gpu),
        in_(in),
        stride_(stride),
        conv1_(gpu, params, name + ".conv1", in, conv3x3(out_channels, stride), workspace, true),
        bn1_(gpu, params, name + ".bn1", conv1_.output_shape()),
        conv2_(gpu, params, name + ".conv2", conv1_.output_shape(), conv3x3(out_channels, 1), workspace, true),
        bn_out_(gpu, params, name + ".bn_out", conv2_.output_shape()),
        out_(conv2_.output_shape()) {
    // The shortcut subsamples to the output's size and only adds channels.
    if (out_.c < in_.c || (in_.h + stride - 1) / stride != out_.h || (in_.w + stride - 1) / stride != out_.w)
      throw std::logic_error(fmt::format("{}: the shortcut cannot map {}x{}x{} onto {}x{}x{}", name, in_.c, in_.h,
                                         in_.w, out_.c, out_.h, out_.w));
  }

  ImageShape output_shape() const { return out_; }

  float* forward(const float* x) {
    float* t = bn1_.forward(conv1_.forward(x));
    kernels::activate(Activation::kRelu, t, out_.numel(), gpu_->stream());
    float* sum = conv2_.forward(t);
    kernels::add_shortcut(x, dims(in_), in_.n, stride_, sum, dims(out_), gpu_->stream());
    return bn_out_.forward(sum);
  }

  // Returns the gradient of the block's input.
  float* backward(const float* grad) {
    const float* grad_sum = bn_out_.backward(grad);  // shared by both paths
    float* main = conv2_.backward(grad_sum);
    kernels::activation_backward(Activation::kRelu, bn1_.output(), main, out_.numel(), gpu_->stream());
    float* dx = conv1_.backward(bn1_.backward(main));
    kernels::add_shortcut_gradient(grad_sum, dims(out_), in_.n, stride_, dx, dims(in_), gpu_->stream());
    return dx;
  }

 private:
  const GpuContext* gpu_;
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
  ResNetwork(const GpuContext& gpu, DeviceParameters& params, const models::ResNetSpec& spec, std::int64_t batch)
      : gpu_(&gpu) {
    const ImageShape input{batch, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]};
    stem_ = std::make_unique<Conv2d>(gpu, params, "conv1", input, conv3x3(spec.stage_channels.front(), 1), workspace_,
                                     false);
    stem_shape_ = stem_->output_shape();
    stem_bn_ = std::make_unique<BatchNorm2d>(gpu, params, "bn1", stem_shape_);
    ImageShape shape = stem_shape_;
    blocks_.reserve(spec.stage_channels.size() * static_cast<std::size_t>(spec.blocks_per_stage));
    for (std::size_t stage = 0; stage < spec.stage_channels.size(); ++stage)
      for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b) {
        const std::int64_t stride = stage > 0 && b == 0 ? 2 : 1;
        blocks_.emplace_back(gpu, params, fmt::format("blocks.{}", blocks_.size()), shape, spec.stage_channels[stage],
                             stride, workspace_);
        shape = blocks_.back().output_shape();
      }
    pool_ = std::make_unique<Pool2d>(gpu, models::PoolKind::kAverage, shape, shape.h, shape.w, 1);
    fc_ = std::make_unique<Linear>(gpu, params, "fc", shape.c, spec.classes, batch, true);
    workspace_.allocate();
  }

  float* forward(const float* examples) override {
    float* x = stem_bn_->forward(stem_->forward(examples));
    kernels::activate(Activation::kRelu, x, stem_shape_.numel(), gpu_->stream());
    for (auto& block : blocks_) x = block.forward(x);
    return fc_->forward(pool_->forward(x));  // [N, C, 1, 1] is [N, C]
  }

  void backward(float* grad_scores) override {
    float* grad = pool_->backward(fc_->backward(grad_scores));
    for (std::size_t i = blocks_.size(); i-- > 0;) grad = blocks_[i].backward(grad);
    kernels::activation_backward(Activation::kRelu, stem_bn_->output(), grad, stem_shape_.numel(), gpu_->stream());
    stem_->backward(stem_bn_->backward(grad));
  }

 private:
  const GpuContext* gpu_;
  ConvWorkspace workspace_;
  ImageShape stem_shape_;
  std::unique_ptr<Conv2d> stem_;
  std::unique_ptr<BatchNorm2d> stem_bn_;
  std::vector<BasicBlock> blocks_;
  std::unique_ptr<Pool2d> pool_;
  std::unique_ptr<Linear> fc_;
};

std::vector<LstmLayer> make_lstm_layers(const GpuContext& gpu, DeviceParameters& params, const models::LstmSpec& spec,
                                        std::int64_t batch) {
  std::vector<LstmLayer> layers;
  layers.reserve(static_cast<std::size_t>(spec.layers));
  for (int k = 0; k < spec.layers; ++k)
    layers.emplace_back(gpu, params, k, k == 0 ? spec.embedding : spec.hidden, spec.hidden, spec.sequence, batch,
                        /*input_gradient=*/true);
  return layers;
}

}  // namespace

std::unique_ptr<ClassifierNetwork> make_classifier(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::ModelSpec& spec, std::int64_t batch) {
  std::unique_ptr<ClassifierNetwork> net;
  if (const auto* mlp = std::get_if<models::MlpSpec>(&spec.architecture))
    net = std::make_unique<MlpNetwork>(gpu, params, *mlp, batch);
  else if (const auto* conv = std::get_if<models::ConvNetSpec>(&spec.architecture))
    net = std::make_unique<ConvNetwork>(gpu, params, *conv, batch);
  else if (const auto* res = std::get_if<models::ResNetSpec>(&spec.architecture))
    net = std::make_unique<ResNetwork>(gpu, params, *res, batch);
  else
    throw std::invalid_argument(spec.name + " is not a classifier");
  params.check_all_taken();
  return net;
}

// Members are built in declaration order, which is the layout's order of
// the parameters: embedding, LSTM layers, decoder.
LanguageModel::LanguageModel(const GpuContext& gpu, DeviceParameters& params, const models::LstmSpec& spec,
                             std::int64_t batch)
    : gpu_(&gpu),
      spec_(spec),
      batch_(batch),
      embedding_(gpu, params, "embedding", spec.vocabulary, spec.embedding, spec.sequence * batch),
      layers_(make_lstm_layers(gpu, params, spec, batch)),
      decoder_(gpu, params, "decoder", spec.hidden, spec.vocabulary, spec.sequence * batch, true),
      h_(static_cast<std::size_t>(spec.layers * batch * spec.hidden)),
      c_(static_cast<std::size_t>(spec.layers * batch * spec.hidden)) {
  params.check_all_taken();
  reset_state();
}

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
  DLCBENCH_CUDA(cudaMemsetAsync(h_.data(), 0, h_.size() * sizeof(float), gpu_->stream()));
  DLCBENCH_CUDA(cudaMemsetAsync(c_.data(), 0, c_.size() * sizeof(float), gpu_->stream()));
}

}  // namespace dlcbench::cuda
