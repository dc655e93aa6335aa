#include "backends/onednn/layers.h"

#include <string>

namespace dlcbench::onednn {
namespace {

using dnnl::algorithm;
using dnnl::prop_kind;
using dt = memory::data_type;

memory::desc any_desc(const memory::dims& dims) { return memory::desc(dims, dt::f32, Tag::any); }

Activation make_activation(Context& context, const memory::desc& desc) {
  return {make_memory(context, desc), make_memory(context, desc)};
}

void push(std::vector<Step>& steps, const Relayout& r) {
  if (r.step) steps.push_back(*r.step);
}

Step primitive_step(dnnl::primitive p, std::unordered_map<int, memory> args) {
  return Step{std::move(p), std::move(args), {}};
}

// x += y for two memories of one layout, in place.
Step accumulate_step(Context& context, const memory& x, const memory& y) {
  const dnnl::binary::primitive_desc pd({algorithm::binary_add, x.get_desc(), y.get_desc(), x.get_desc()},
                                        context.engine);
  return primitive_step(dnnl::binary(pd), {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, y}, {DNNL_ARG_DST, x}});
}

// The primitive descriptor `make` gives for the `preferred` layout, unless
// only a reference (slow) implementation takes it: then the one for `any`.
template <typename PrimitiveDesc, typename Make>
PrimitiveDesc fast_or_any(const Make& make, const memory::desc& preferred, const memory::desc& any) {
  try {
    PrimitiveDesc pd = make(preferred);
    if (std::string(pd.impl_info_str()).find("ref") == std::string::npos) return pd;
  } catch (const dnnl::error&) {
    // not supported in that layout
  }
  return make(any);
}

}  // namespace

Activation add_linear(Program& program, Context& context, const Activation& in, std::int64_t outputs,
                      const std::string& name) {
  const memory::desc src = in.desc();
  memory::dims weight_dims = src.dims();  // {O, I} or {O, C, H, W}: the shared layout's order
  const std::int64_t batch = weight_dims[0];
  weight_dims[0] = outputs;
  std::int64_t fan_in = 1;
  for (std::size_t i = 1; i < weight_dims.size(); ++i) fan_in *= weight_dims[i];
  const memory::desc weights_any = any_desc(weight_dims);
  const memory::desc bias(memory::dims{outputs}, dt::f32, Tag::a);
  const memory::desc dst(memory::dims{batch, outputs}, dt::f32, Tag::ab);

  const dnnl::inner_product_forward::primitive_desc forward(
      {prop_kind::forward_training, src, weights_any, bias, dst}, context.engine);
  Parameter& weight = add_parameter(program, context, name + ".weight", {outputs, fan_in},
                                    plain_desc({weight_dims.begin(), weight_dims.end()}), forward.weights_desc());
  Parameter& b = add_parameter(program, context, name + ".bias", {outputs}, bias, bias);
  Activation out = make_activation(context, dst);
  program.forward.push_back(primitive_step(dnnl::inner_product_forward(forward), {{DNNL_ARG_SRC, in.value},
                                                                                  {DNNL_ARG_WEIGHTS, weight.value},
                                                                                  {DNNL_ARG_BIAS, b.value},
                                                                                  {DNNL_ARG_DST, out.value}}));

  // The backward passes take the forward pass's weight layout where a fast
  // implementation can: reordering a large weight matrix twice a step costs
  // more than the matrix products that use it.
  const memory::desc weights = forward.weights_desc();
  auto& backward = program.new_backward_group();
  const auto weights_grad = fast_or_any<dnnl::inner_product_backward_weights::primitive_desc>(
      [&](const memory::desc& w) {
        return dnnl::inner_product_backward_weights::primitive_desc({src, w, bias, dst}, context.engine, forward);
      },
      weights, weights_any);
  const Relayout dw = relayout_to(context, weights_grad.diff_weights_desc(), weight.gradient);
  backward.push_back(primitive_step(dnnl::inner_product_backward_weights(weights_grad),
                                    {{DNNL_ARG_SRC, in.value},
                                     {DNNL_ARG_DIFF_DST, out.gradient},
                                     {DNNL_ARG_DIFF_WEIGHTS, dw.from},
                                     {DNNL_ARG_DIFF_BIAS, b.gradient}}));
  push(backward, dw);
  if (in.gradient) {
    const auto data_grad = fast_or_any<dnnl::inner_product_backward_data::primitive_desc>(
        [&](const memory::desc& w) {
          return dnnl::inner_product_backward_data::primitive_desc({src, w, dst}, context.engine, forward);
        },
        weights, weights_any);
    const Relayout w = relayout_from(context, weight.value, data_grad.weights_desc());
    push(backward, w);
    backward.push_back(primitive_step(
        dnnl::inner_product_backward_data(data_grad),
        {{DNNL_ARG_DIFF_DST, out.gradient}, {DNNL_ARG_WEIGHTS, w.to}, {DNNL_ARG_DIFF_SRC, in.gradient}}));
  }
  return out;
}

Activation add_convolution(Program& program, Context& context, const Activation& in, const ConvShape& shape,
                           const std::string& name) {
  const memory::dims in_dims = in.desc().dims();  // N, C, H, W
  const std::int64_t k = shape.kernel, s = shape.stride, pad = shape.padding;
  const memory::dims out_dims = {in_dims[0], shape.out_channels, (in_dims[2] + 2 * pad - k) / s + 1,
                                 (in_dims[3] + 2 * pad - k) / s + 1};
  const memory::dims weight_dims = {shape.out_channels, in_dims[1], k, k};
  const memory::dims strides = {s, s}, padding = {pad, pad};
  const memory::desc src_any = any_desc(in_dims), weights_any = any_desc(weight_dims), dst_any = any_desc(out_dims);
  // A zero descriptor tells oneDNN there is no bias.
  const memory::desc bias = shape.bias ? memory::desc({shape.out_channels}, dt::f32, Tag::a) : memory::desc();

  const dnnl::convolution_forward::primitive_desc forward(
      {prop_kind::forward_training, algorithm::convolution_direct, src_any, weights_any, bias, dst_any, strides,
       padding, padding},
      context.engine);
  Parameter& weight = add_parameter(program, context, name + ".weight", {weight_dims.begin(), weight_dims.end()},
                                    plain_desc({weight_dims.begin(), weight_dims.end()}), forward.weights_desc());
  Parameter* b = shape.bias ? &add_parameter(program, context, name + ".bias", {shape.out_channels}, bias, bias)
                            : nullptr;
  Activation out = make_activation(context, forward.dst_desc());
  const Relayout x = relayout_from(context, in.value, forward.src_desc());
  push(program.forward, x);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, x.to}, {DNNL_ARG_WEIGHTS, weight.value}, {DNNL_ARG_DST, out.value}};
  if (b) args[DNNL_ARG_BIAS] = b->value;
  program.forward.push_back(primitive_step(dnnl::convolution_forward(forward), std::move(args)));

  auto& backward = program.new_backward_group();
  const dnnl::convolution_backward_weights::primitive_desc weights_grad(
      {algorithm::convolution_direct, src_any, weights_any, bias, dst_any, strides, padding, padding},
      context.engine, forward);
  const Relayout src_w = relayout_from(context, x.to, weights_grad.src_desc());
  const Relayout dy_w = relayout_from(context, out.gradient, weights_grad.diff_dst_desc());
  const Relayout dw = relayout_to(context, weights_grad.diff_weights_desc(), weight.gradient);
  push(backward, src_w);
  push(backward, dy_w);
  std::unordered_map<int, memory> grad_args = {
      {DNNL_ARG_SRC, src_w.to}, {DNNL_ARG_DIFF_DST, dy_w.to}, {DNNL_ARG_DIFF_WEIGHTS, dw.from}};
  if (b) grad_args[DNNL_ARG_DIFF_BIAS] = b->gradient;
  backward.push_back(primitive_step(dnnl::convolution_backward_weights(weights_grad), std::move(grad_args)));
  push(backward, dw);
  if (in.gradient) {
    const dnnl::convolution_backward_data::primitive_desc data_grad(
        {algorithm::convolution_direct, src_any, weights_any, dst_any, strides, padding, padding}, context.engine,
        forward);
    const Relayout w = relayout_from(context, weight.value, data_grad.weights_desc());
    const Relayout dy = relayout_from(context, out.gradient, data_grad.diff_dst_desc());
    const Relayout dx = relayout_to(context, data_grad.diff_src_desc(), in.gradient);
    push(backward, w);
    push(backward, dy);
    backward.push_back(primitive_step(dnnl::convolution_backward_data(data_grad), {{DNNL_ARG_DIFF_DST, dy.to},
                                                                                   {DNNL_ARG_WEIGHTS, w.to},
                                                                                   {DNNL_ARG_DIFF_SRC, dx.from}}));
    push(backward, dx);
  }
  return out;
}

Activation add_activation(Program& program, Context& context, const Activation& in, models::Activation kind) {
  const algorithm alg = kind == models::Activation::kSigmoid ? algorithm::eltwise_logistic : algorithm::eltwise_relu;
  const memory::desc desc = in.desc();
  const dnnl::eltwise_forward::primitive_desc forward({prop_kind::forward_training, alg, desc, 0.0f, 0.0f},
                                                      context.engine);
  Activation out = make_activation(context, desc);
  program.forward.push_back(
      primitive_step(dnnl::eltwise_forward(forward), {{DNNL_ARG_SRC, in.value}, {DNNL_ARG_DST, out.value}}));
  auto& backward = program.new_backward_group();
  if (in.gradient) {
    const dnnl::eltwise_backward::primitive_desc grad({alg, desc, desc, 0.0f, 0.0f}, context.engine, forward);
    backward.push_back(primitive_step(
        dnnl::eltwise_backward(grad),
        {{DNNL_ARG_SRC, in.value}, {DNNL_ARG_DIFF_DST, out.gradient}, {DNNL_ARG_DIFF_SRC, in.gradient}}));
  }
  return out;
}

Activation add_pooling(Program& program, Context& context, const Activation& in, models::PoolKind kind,
                       std::int64_t kernel_h, std::int64_t kernel_w, std::int64_t stride) {
  const bool max = kind == models::PoolKind::kMax;
  // Without padding "exclude padding" divides by the whole window, as PyTorch does.
  const algorithm alg = max ? algorithm::pooling_max : algorithm::pooling_avg_exclude_padding;
  const memory::desc src = in.desc();
  const memory::dims in_dims = src.dims();
  const memory::dims out_dims = {in_dims[0], in_dims[1], (in_dims[2] - kernel_h) / stride + 1,
                                 (in_dims[3] - kernel_w) / stride + 1};
  const memory::dims strides = {stride, stride}, kernel = {kernel_h, kernel_w}, none = {0, 0};
  const dnnl::pooling_forward::primitive_desc forward(
      {prop_kind::forward_training, alg, src, any_desc(out_dims), strides, kernel, none, none}, context.engine);
  Activation out = make_activation(context, forward.dst_desc());
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, in.value}, {DNNL_ARG_DST, out.value}};
  memory workspace;  // where each window's maximum was, for the backward pass
  if (max) args[DNNL_ARG_WORKSPACE] = workspace = make_memory(context, forward.workspace_desc());
  program.forward.push_back(primitive_step(dnnl::pooling_forward(forward), std::move(args)));

  auto& backward = program.new_backward_group();
  if (in.gradient) {
    const dnnl::pooling_backward::primitive_desc grad({alg, src, forward.dst_desc(), strides, kernel, none, none},
                                                      context.engine, forward);
    std::unordered_map<int, memory> grad_args = {{DNNL_ARG_DIFF_DST, out.gradient}, {DNNL_ARG_DIFF_SRC, in.gradient}};
    if (max) grad_args[DNNL_ARG_WORKSPACE] = workspace;
    backward.push_back(primitive_step(dnnl::pooling_backward(grad), std::move(grad_args)));
  }
  return out;
}

Activation add_batch_norm(Program& program, Context& context, const Activation& in, const std::string& name) {
  constexpr float kEpsilon = 1e-5f;  // PyTorch's default
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  const memory::desc desc = in.desc();
  const std::int64_t channels = desc.dims()[1];
  const memory::desc per_channel({channels}, dt::f32, Tag::a);
  const dnnl::batch_normalization_forward::primitive_desc forward(
      {prop_kind::forward_training, desc, kEpsilon, flags}, context.engine);
  Parameter& scale = add_parameter(program, context, name + ".weight", {channels}, per_channel, per_channel);
  Parameter& shift = add_parameter(program, context, name + ".bias", {channels}, per_channel, per_channel);
  const memory mean = make_memory(context, forward.mean_desc());
  const memory variance = make_memory(context, forward.variance_desc());
  Activation out = make_activation(context, desc);
  program.forward.push_back(primitive_step(dnnl::batch_normalization_forward(forward),
                                           {{DNNL_ARG_SRC, in.value},
                                            {DNNL_ARG_SCALE, scale.value},
                                            {DNNL_ARG_SHIFT, shift.value},
                                            {DNNL_ARG_MEAN, mean},
                                            {DNNL_ARG_VARIANCE, variance},
                                            {DNNL_ARG_DST, out.value}}));
  auto& backward = program.new_backward_group();
  const dnnl::batch_normalization_backward::primitive_desc grad({prop_kind::backward, desc, desc, kEpsilon, flags},
                                                                context.engine, forward);
  // The input's gradient is needed for the scale's and shift's anyway; a
  // network input without one gets a scratch memory.
  const memory dx = in.gradient ? in.gradient : make_memory(context, desc);
  backward.push_back(primitive_step(dnnl::batch_normalization_backward(grad),
                                    {{DNNL_ARG_SRC, in.value},
                                     {DNNL_ARG_MEAN, mean},
                                     {DNNL_ARG_VARIANCE, variance},
                                     {DNNL_ARG_DIFF_DST, out.gradient},
                                     {DNNL_ARG_SCALE, scale.value},
                                     {DNNL_ARG_SHIFT, shift.value},
                                     {DNNL_ARG_DIFF_SRC, dx},
                                     {DNNL_ARG_DIFF_SCALE, scale.gradient},
                                     {DNNL_ARG_DIFF_SHIFT, shift.gradient}}));
  return out;
}

Activation add_shortcut_sum(Program& program, Context& context, const Activation& x, const Activation& y,
                            std::int64_t stride, std::vector<Step>& after_input_gradient) {
  const memory::dims x_dims = x.desc().dims(), y_dims = y.desc().dims();
  const bool identity = stride == 1 && x_dims == y_dims;
  memory shortcut;
  if (identity) {
    const Relayout r = relayout_from(context, x.value, y.desc());
    push(program.forward, r);
    shortcut = r.to;
  } else {
    // Subsampling and channel padding are plain loops over NCHW copies.
    const Relayout x_plain = relayout_from(context, x.value, memory::desc(x_dims, dt::f32, Tag::nchw));
    const memory s_plain = make_memory(context, memory::desc(y_dims, dt::f32, Tag::nchw));
    const Relayout to_y = relayout_from(context, s_plain, y.desc());
    push(program.forward, x_plain);
    // Only the first C_in channels at the strided positions are written; the
    // padding channels stay zero from the allocation.
    program.forward.push_back(Step{std::nullopt, {}, [from = x_plain.to, to = s_plain, x_dims, y_dims, stride] {
                                     const float* in = floats(from);
                                     float* out = floats(to);
                                     const std::int64_t h = x_dims[2], w = x_dims[3], oh = y_dims[2], ow = y_dims[3];
                                     for (std::int64_t n = 0; n < x_dims[0]; ++n)
                                       for (std::int64_t c = 0; c < x_dims[1]; ++c)
                                         for (std::int64_t i = 0; i < oh; ++i)
                                           for (std::int64_t j = 0; j < ow; ++j)
                                             out[((n * y_dims[1] + c) * oh + i) * ow + j] =
                                                 in[((n * x_dims[1] + c) * h + i * stride) * w + j * stride];
                                   }});
    push(program.forward, to_y);
    shortcut = to_y.to;
  }
  const Activation sum{make_memory(context, y.desc()), y.gradient};
  const dnnl::binary::primitive_desc add({dnnl::algorithm::binary_add, y.desc(), y.desc(), y.desc()},
                                         context.engine);
  program.forward.push_back(primitive_step(
      dnnl::binary(add), {{DNNL_ARG_SRC_0, y.value}, {DNNL_ARG_SRC_1, shortcut}, {DNNL_ARG_DST, sum.value}}));

  // Backward: x's share is the sum's gradient, subsampled back (zeros between
  // the strided positions and for the padding channels).
  if (identity) {
    const Relayout g = relayout_from(context, y.gradient, x.desc());
    push(after_input_gradient, g);
    after_input_gradient.push_back(accumulate_step(context, x.gradient, g.to));
  } else {
    const Relayout g_plain = relayout_from(context, y.gradient, memory::desc(y_dims, dt::f32, Tag::nchw));
    const memory dx_plain = make_memory(context, memory::desc(x_dims, dt::f32, Tag::nchw));
    const Relayout to_x = relayout_from(context, dx_plain, x.desc());
    push(after_input_gradient, g_plain);
    // Positions between the strided ones stay zero from the allocation.
    after_input_gradient.push_back(Step{std::nullopt, {}, [from = g_plain.to, to = dx_plain, x_dims, y_dims, stride] {
                                          const float* in = floats(from);
                                          float* out = floats(to);
                                          const std::int64_t h = x_dims[2], w = x_dims[3], oh = y_dims[2],
                                                             ow = y_dims[3];
                                          for (std::int64_t n = 0; n < x_dims[0]; ++n)
                                            for (std::int64_t c = 0; c < x_dims[1]; ++c)
                                              for (std::int64_t i = 0; i < oh; ++i)
                                                for (std::int64_t j = 0; j < ow; ++j)
                                                  out[((n * x_dims[1] + c) * h + i * stride) * w + j * stride] =
                                                      in[((n * y_dims[1] + c) * oh + i) * ow + j];
                                        }});
    push(after_input_gradient, to_x);
    after_input_gradient.push_back(accumulate_step(context, x.gradient, to_x.to));
  }
  return sum;
}

}  // namespace dlcbench::onednn
