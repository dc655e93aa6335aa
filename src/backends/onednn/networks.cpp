#include "backends/onednn/networks.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/onednn/layers.h"

namespace dlcbench::onednn {
namespace {

void build_mlp(ClassifierNetwork& net, Context& context, const models::MlpSpec& spec, Activation x) {
  for (std::size_t i = 1; i < spec.layer_sizes.size(); ++i) {
    x = add_linear(net.program, context, x, spec.layer_sizes[i], fmt::format("fc{}", i));
    if (i + 1 < spec.layer_sizes.size()) x = add_activation(net.program, context, x, spec.activation);
  }
  net.scores = x;
}

void build_convnet(ClassifierNetwork& net, Context& context, const models::ConvNetSpec& spec,
                   Activation x) {
  for (std::size_t i = 0; i < spec.stages.size(); ++i) {
    const auto& s = spec.stages[i];
    x = add_convolution(net.program, context, x, {s.out_channels, s.kernel, s.stride, s.padding, true},
                        fmt::format("conv{}", i + 1));
    x = add_activation(net.program, context, x, spec.activation);
    x = add_pooling(net.program, context, x, s.pool, s.pool_kernel, s.pool_kernel, s.pool_stride);
  }
  net.scores = add_linear(net.program, context, x, spec.classes, "fc");  // flattens C, H, W
}

ConvShape conv3x3(std::int64_t channels, std::int64_t stride) { return {channels, 3, stride, 1, false}; }

void build_resnet(ClassifierNetwork& net, Context& context, const models::ResNetSpec& spec, Activation x) {
  Program& p = net.program;
  x = add_convolution(p, context, x, conv3x3(spec.stage_channels.front(), 1), "conv1");
  x = add_activation(p, context, add_batch_norm(p, context, x, "bn1"), models::Activation::kRelu);
  int block = 0;
  for (std::size_t stage = 0; stage < spec.stage_channels.size(); ++stage)
    for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b, ++block) {
      const std::int64_t stride = stage > 0 && b == 0 ? 2 : 1;
      const std::string prefix = fmt::format("blocks.{}", block);
      // Created before the block's layers so that it runs after them in the
      // backward pass, when the first convolution has written x's gradient.
      auto& shortcut_gradient = p.new_backward_group();
      auto y = add_convolution(p, context, x, conv3x3(spec.stage_channels[stage], stride), prefix + ".conv1");
      y = add_activation(p, context, add_batch_norm(p, context, y, prefix + ".bn1"), models::Activation::kRelu);
      y = add_convolution(p, context, y, conv3x3(spec.stage_channels[stage], 1), prefix + ".conv2");
      y = add_shortcut_sum(p, context, x, y, stride, shortcut_gradient);
      x = add_batch_norm(p, context, y, prefix + ".bn_out");
    }
  const memory::dims dims = x.desc().dims();
  x = add_pooling(p, context, x, models::PoolKind::kAverage, dims[2], dims[3], 1);  // global average
  net.scores = add_linear(p, context, x, spec.classes, "fc");
}

}  // namespace

std::unique_ptr<ClassifierNetwork> build_classifier(Context& context, const models::ModelSpec& model,
                                                    std::int64_t batch) {
  auto net = std::make_unique<ClassifierNetwork>();
  std::vector<std::int64_t> shape = model.input_shape();
  shape.insert(shape.begin(), batch);
  // The data handle is replaced by the batch's before each step.
  net->input = make_memory(context, plain_desc(shape));
  const Activation input{net->input, memory()};  // no gradient for the data
  if (const auto* mlp = std::get_if<models::MlpSpec>(&model.architecture))
    build_mlp(*net, context, *mlp, input);
  else if (const auto* conv = std::get_if<models::ConvNetSpec>(&model.architecture))
    build_convnet(*net, context, *conv, input);
  else if (const auto* res = std::get_if<models::ResNetSpec>(&model.architecture))
    build_resnet(*net, context, *res, input);
  else
    throw std::invalid_argument(model.name + " is not a classifier");
  return net;
}

std::unique_ptr<LanguageModelNetwork> build_language_model(Context& context, const models::LstmSpec& spec,
                                                           std::int64_t batch) {
  auto net = std::make_unique<LanguageModelNetwork>();
  Program& p = net->program;
  Activation x =
      add_embedding(p, context, spec.vocabulary, spec.embedding, spec.sequence, batch, &net->tokens);
  for (std::int64_t k = 0; k < spec.layers; ++k) {
    net->layers.push_back(add_lstm_layer(p, context, x, spec.hidden, static_cast<int>(k)));
    x = net->layers.back().output;
  }
  // The decoder sees the [sequence, batch, hidden] output as [sequence *
  // batch, hidden] rows: the same memory under another descriptor.
  const memory::desc rows(memory::dims{spec.sequence * batch, spec.hidden}, memory::data_type::f32, Tag::ab);
  const Activation flat{memory(rows, context.engine, x.value.get_data_handle()),
                                memory(rows, context.engine, x.gradient.get_data_handle())};
  net->scores = add_linear(p, context, flat, spec.vocabulary, "decoder");
  return net;
}

ParameterSet read_parameters(Context& context, const std::deque<Parameter>& parameters) {
  ParameterSet set;
  for (const auto& p : parameters) {
    ParameterTensor t{p.name, p.shape, {}};
    t.values.resize(static_cast<std::size_t>(t.numel()));
    memory shared(p.shared, context.engine, t.values.data());
    memory value = p.value;  // execute() takes non-const handles
    dnnl::reorder(value, shared).execute(context.stream, value, shared);
    context.stream.wait();
    set.push_back(std::move(t));
  }
  return set;
}

void write_parameters(Context& context, std::deque<Parameter>& parameters, const ParameterSet& values) {
  if (values.size() != parameters.size()) throw std::logic_error("parameter sets of different networks");
  for (std::size_t i = 0; i < values.size(); ++i) {
    Parameter& p = parameters[i];
    if (values[i].name != p.name) throw std::logic_error(fmt::format("{} given for {}", values[i].name, p.name));
    memory shared(p.shared, context.engine, const_cast<float*>(values[i].values.data()));
    dnnl::reorder(shared, p.value).execute(context.stream, shared, p.value);
    context.stream.wait();
    std::memset(p.momentum.get_data_handle(), 0, p.momentum.get_desc().get_size());
  }
}

}  // namespace dlcbench::onednn
