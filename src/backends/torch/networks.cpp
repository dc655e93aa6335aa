#include "backends/torch/networks.h"

#include <fmt/format.h>

namespace dlcbench::torch_backend {
namespace {

namespace nn = torch::nn;
using models::Activation;

torch::Tensor activate(torch::Tensor x, Activation a) {
  return a == Activation::kSigmoid ? torch::sigmoid(x) : torch::relu(x);
}

struct MlpNet : Classifier {
  explicit MlpNet(const models::MlpSpec& spec) : activation(spec.activation) {
    for (std::size_t i = 1; i < spec.layer_sizes.size(); ++i)
      layers.push_back(register_module(fmt::format("fc{}", i),
                                       nn::Linear(spec.layer_sizes[i - 1], spec.layer_sizes[i])));
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = x.flatten(1);
    for (std::size_t i = 0; i + 1 < layers.size(); ++i) x = activate(layers[i]->forward(x), activation);
    return layers.back()->forward(x);
  }

  Activation activation;
  std::vector<nn::Linear> layers;
};

struct ConvNet : Classifier {
  explicit ConvNet(const models::ConvNetSpec& network) : spec(network) {
    std::int64_t channels = spec.input_shape[0], h = spec.input_shape[1], w = spec.input_shape[2];
    for (std::size_t i = 0; i < spec.stages.size(); ++i) {
      const auto& s = spec.stages[i];
      convs.push_back(register_module(
          fmt::format("conv{}", i + 1),
          nn::Conv2d(nn::Conv2dOptions(channels, s.out_channels, s.kernel).stride(s.stride).padding(s.padding))));
      channels = s.out_channels;
      h = ((h + 2 * s.padding - s.kernel) / s.stride + 1 - s.pool_kernel) / s.pool_stride + 1;
      w = ((w + 2 * s.padding - s.kernel) / s.stride + 1 - s.pool_kernel) / s.pool_stride + 1;
    }
    fc = register_module("fc", nn::Linear(channels * h * w, spec.classes));
  }

  torch::Tensor forward(torch::Tensor x) override {
    for (std::size_t i = 0; i < convs.size(); ++i) {
      const auto& s = spec.stages[i];
      x = activate(convs[i]->forward(x), spec.activation);
      x = s.pool == models::PoolKind::kMax ? torch::max_pool2d(x, s.pool_kernel, s.pool_stride)
                                           : torch::avg_pool2d(x, s.pool_kernel, s.pool_stride);
    }
    return fc->forward(x.flatten(1));
  }

  models::ConvNetSpec spec;
  std::vector<nn::Conv2d> convs;
  nn::Linear fc{nullptr};
};

nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

// dlbench's block: conv - BN - ReLU - conv, add the shortcut, BN.
struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(std::int64_t in, std::int64_t out, std::int64_t step)
      : conv1(register_module("conv1", conv3x3(in, out, step))),
        bn1(register_module("bn1", nn::BatchNorm2d(out))),
        conv2(register_module("conv2", conv3x3(out, out, 1))),
        bn_out(register_module("bn_out", nn::BatchNorm2d(out))),
        stride(step),
        extra_channels(out - in) {}

  torch::Tensor forward(torch::Tensor x) {
    auto y = conv2->forward(torch::relu(bn1->forward(conv1->forward(x))));
    return bn_out->forward(y + shortcut(x));
  }

  // Option A: subsample, then pad the new channels with zeros.
  torch::Tensor shortcut(torch::Tensor x) const {
    if (stride == 1 && extra_channels == 0) return x;
    using torch::indexing::Slice;
    x = x.index({Slice(), Slice(), Slice(torch::indexing::None, torch::indexing::None, stride),
                 Slice(torch::indexing::None, torch::indexing::None, stride)});
    return torch::constant_pad_nd(x, {0, 0, 0, 0, 0, extra_channels});
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn_out;
  std::int64_t stride, extra_channels;
};
TORCH_MODULE(BasicBlock);

struct ResNet : Classifier {
  explicit ResNet(const models::ResNetSpec& spec) {
    std::int64_t channels = spec.stage_channels.front();
    stem = register_module("conv1", conv3x3(spec.input_shape[0], channels, 1));
    stem_bn = register_module("bn1", nn::BatchNorm2d(channels));
    for (std::size_t stage = 0; stage < spec.stage_channels.size(); ++stage)
      for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b) {
        const std::int64_t stride = stage > 0 && b == 0 ? 2 : 1;
        blocks->push_back(BasicBlock(channels, spec.stage_channels[stage], stride));
        channels = spec.stage_channels[stage];
      }
    register_module("blocks", blocks);
    fc = register_module("fc", nn::Linear(channels, spec.classes));
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(stem_bn->forward(stem->forward(x)));
    x = blocks->forward(x);
    return fc->forward(x.mean({2, 3}));  // global average pooling
  }

  nn::Conv2d stem{nullptr};
  nn::BatchNorm2d stem_bn{nullptr};
  nn::Sequential blocks;
  nn::Linear fc{nullptr};
};

void initialise(nn::Module& module, models::WeightInit init) {
  torch::NoGradGuard no_grad;
  for (auto& m : module.modules(/*include_self=*/false)) {
    if (auto* linear = m->as<nn::Linear>()) {
      nn::init::xavier_uniform_(linear->weight);
      nn::init::zeros_(linear->bias);
    } else if (auto* conv = m->as<nn::Conv2d>()) {
      if (init == models::WeightInit::kKaimingNormal)
        nn::init::kaiming_normal_(conv->weight, 0, torch::kFanOut, torch::kReLU);
      else
        nn::init::xavier_uniform_(conv->weight);
      if (conv->options.bias()) nn::init::zeros_(conv->bias);
    } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
      nn::init::ones_(bn->weight);
      nn::init::zeros_(bn->bias);
    }
  }
}

}  // namespace

std::shared_ptr<Classifier> make_classifier(const models::ModelSpec& spec) {
  std::shared_ptr<Classifier> net;
  if (const auto* mlp = std::get_if<models::MlpSpec>(&spec.architecture))
    net = std::make_shared<MlpNet>(*mlp);
  else if (const auto* conv = std::get_if<models::ConvNetSpec>(&spec.architecture))
    net = std::make_shared<ConvNet>(*conv);
  else if (const auto* res = std::get_if<models::ResNetSpec>(&spec.architecture))
    net = std::make_shared<ResNet>(*res);
  else
    throw std::invalid_argument(spec.name + " is not a classifier");
  initialise(*net, spec.init);
  return net;
}

LanguageModel::LanguageModel(const models::LstmSpec& s) : spec(s) {
  embedding = register_module("embedding", nn::Embedding(s.vocabulary, s.embedding));
  lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions(s.embedding, s.hidden).num_layers(s.layers)));
  decoder = register_module("decoder", nn::Linear(s.hidden, s.vocabulary));
  torch::NoGradGuard no_grad;
  for (auto& p : parameters()) p.uniform_(-s.init_range, s.init_range);
}

std::pair<torch::Tensor, LstmState> LanguageModel::forward(torch::Tensor tokens, const LstmState& state) {
  auto [output, new_state] = lstm->forward(embedding->forward(tokens), state);
  return {decoder->forward(output.reshape({-1, spec.hidden})), new_state};
}

LstmState LanguageModel::initial_state(std::int64_t batch) const {
  return {torch::zeros({spec.layers, batch, spec.hidden}), torch::zeros({spec.layers, batch, spec.hidden})};
}

}  // namespace dlcbench::torch_backend
