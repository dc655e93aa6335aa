#include "backends/onednn/lstm_layer.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace dlcbench::onednn {
namespace {

using dnnl::prop_kind;
using dnnl::rnn_direction;
using dt = memory::data_type;

void copy(const memory& from, const memory& to) {
  std::memcpy(to.get_data_handle(), from.get_data_handle(), to.get_desc().get_size());
}

void zero(const memory& m) { std::memset(m.get_data_handle(), 0, m.get_desc().get_size()); }

Step loop_step(std::function<void()> loop) { return Step{std::nullopt, {}, std::move(loop)}; }

// PyTorch's [4H, in] weight (row g*H + o, column i) seen as oneDNN's
// {layers 1, directions 1, in, gates 4, H} dimensions, so a reorder
// transposes it into whatever layout the primitive wants.
memory::desc pytorch_weight_desc(std::int64_t in, std::int64_t hidden) {
  return memory::desc({1, 1, in, 4, hidden}, dt::f32, memory::dims{4 * hidden * in, 4 * hidden * in, 1, hidden * in, in});
}

}  // namespace

void LstmLayer::carry_state() const {
  copy(last_hidden, hidden);
  copy(last_cell, cell);
}

void LstmLayer::reset_state() const {
  zero(hidden);
  zero(cell);
}

Activation add_embedding(Program& program, Context& context, std::int64_t vocabulary, std::int64_t dim,
                         std::int64_t sequence, std::int64_t batch, const std::int64_t* const* tokens) {
  const memory::desc table_desc = plain_desc({vocabulary, dim});
  Parameter& table = add_parameter(program, context, "embedding.weight", {vocabulary, dim}, table_desc, table_desc);
  const memory::desc out_desc({sequence, batch, dim}, dt::f32, Tag::tnc);
  const Activation out{make_memory(context, out_desc), make_memory(context, out_desc)};
  const std::int64_t rows = sequence * batch;
  const auto row_bytes = static_cast<std::size_t>(dim) * sizeof(float);
  program.forward.push_back(loop_step([=, weights = table.value, to = out.value] {
    const float* w = floats(weights);
    float* o = floats(to);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t word = (*tokens)[r];
      if (word < 0 || word >= vocabulary)
        throw std::out_of_range(fmt::format("word id {} outside the vocabulary of {}", word, vocabulary));
      std::memcpy(o + r * dim, w + word * dim, row_bytes);
    }
  }));
  program.new_backward_group().push_back(loop_step([=, grad = table.gradient, from = out.gradient] {
    zero(grad);
    float* g = floats(grad);
    const float* d = floats(from);
    for (std::int64_t r = 0; r < rows; ++r) {
      float* row = g + (*tokens)[r] * dim;
      for (std::int64_t i = 0; i < dim; ++i) row[i] += d[r * dim + i];
    }
  }));
  return out;
}

LstmLayer add_lstm_layer(Program& program, Context& context, const Activation& in, std::int64_t hidden,
                         int index) {
  const memory::dims in_dims = in.desc().dims();  // sequence, batch, input size
  const std::int64_t sequence = in_dims[0], batch = in_dims[1], input = in_dims[2];
  const memory::desc src_layer = in.desc();
  const memory::desc state({1, 1, batch, hidden}, dt::f32, Tag::ldnc);
  const memory::desc weights_layer_any({1, 1, input, 4, hidden}, dt::f32, Tag::any);
  const memory::desc weights_iter_any({1, 1, hidden, 4, hidden}, dt::f32, Tag::any);
  const memory::desc bias({1, 1, 4, hidden}, dt::f32, Tag::ldgo);
  const memory::desc dst_layer({sequence, batch, hidden}, dt::f32, Tag::tnc);
  const auto direction = rnn_direction::unidirectional_left2right;

  const dnnl::lstm_forward::primitive_desc forward({prop_kind::forward_training, direction, src_layer, state, state,
                                                    weights_layer_any, weights_iter_any, bias, dst_layer, state,
                                                    state},
                                                   context.engine);
  const std::string suffix = fmt::format("_l{}", index);
  Parameter& w_ih = add_parameter(program, context, "lstm.weight_ih" + suffix, {4 * hidden, input},
                                  pytorch_weight_desc(input, hidden), forward.weights_layer_desc());
  Parameter& w_hh = add_parameter(program, context, "lstm.weight_hh" + suffix, {4 * hidden, hidden},
                                  pytorch_weight_desc(hidden, hidden), forward.weights_iter_desc());
  const memory::desc gates = plain_desc({4 * hidden});
  Parameter& b_ih = add_parameter(program, context, "lstm.bias_ih" + suffix, {4 * hidden}, gates, gates);
  Parameter& b_hh = add_parameter(program, context, "lstm.bias_hh" + suffix, {4 * hidden}, gates, gates);

  LstmLayer layer{{make_memory(context, dst_layer), make_memory(context, dst_layer)},
                  make_memory(context, state), make_memory(context, state),
                  make_memory(context, state), make_memory(context, state)};
  const memory bias_sum = make_memory(context, bias);
  const memory workspace = make_memory(context, forward.workspace_desc());
  const std::size_t n = float_count(bias_sum);
  program.forward.push_back(loop_step([n, sum = bias_sum, a = b_ih.value, b = b_hh.value] {
    float* out = floats(sum);
    const float *ih = floats(a), *hh = floats(b);
    for (std::size_t i = 0; i < n; ++i) out[i] = ih[i] + hh[i];
  }));
  program.forward.push_back(Step{dnnl::lstm_forward(forward),
                                 {{DNNL_ARG_SRC_LAYER, in.value},
                                  {DNNL_ARG_SRC_ITER, layer.hidden},
                                  {DNNL_ARG_SRC_ITER_C, layer.cell},
                                  {DNNL_ARG_WEIGHTS_LAYER, w_ih.value},
                                  {DNNL_ARG_WEIGHTS_ITER, w_hh.value},
                                  {DNNL_ARG_BIAS, bias_sum},
                                  {DNNL_ARG_DST_LAYER, layer.output.value},
                                  {DNNL_ARG_DST_ITER, layer.last_hidden},
                                  {DNNL_ARG_DST_ITER_C, layer.last_cell},
                                  {DNNL_ARG_WORKSPACE, workspace}},
                                 {}});

  const dnnl::lstm_backward::primitive_desc backward_pd(
      {prop_kind::backward, direction, src_layer, state, state, weights_layer_any, weights_iter_any, bias, dst_layer,
       state, state, src_layer, state, state, weights_layer_any, weights_iter_any, bias, dst_layer, state, state},
      context.engine, forward);
  auto& backward = program.new_backward_group();
  const Relayout w_layer = relayout_from(context, w_ih.value, backward_pd.weights_layer_desc());
  const Relayout w_iter = relayout_from(context, w_hh.value, backward_pd.weights_iter_desc());
  const Relayout dw_layer = relayout_to(context, backward_pd.diff_weights_layer_desc(), w_ih.gradient);
  const Relayout dw_iter = relayout_to(context, backward_pd.diff_weights_iter_desc(), w_hh.gradient);
  const memory diff_bias = make_memory(context, bias);
  // No gradient reaches the state from later windows, and none leaves it.
  const memory zero_state = make_memory(context, state);
  const memory unused_hidden = make_memory(context, state), unused_cell = make_memory(context, state);
  const memory dx = in.gradient ? in.gradient : make_memory(context, src_layer);
  if (w_layer.step) backward.push_back(*w_layer.step);
  if (w_iter.step) backward.push_back(*w_iter.step);
  // oneDNN adds the weight gradients to what is there.
  backward.push_back(loop_step([a = dw_layer.from, b = dw_iter.from, diff_bias] {
    zero(a);
    zero(b);
    zero(diff_bias);
  }));
  backward.push_back(Step{dnnl::lstm_backward(backward_pd),
                          {{DNNL_ARG_SRC_LAYER, in.value},
                           {DNNL_ARG_SRC_ITER, layer.hidden},
                           {DNNL_ARG_SRC_ITER_C, layer.cell},
                           {DNNL_ARG_WEIGHTS_LAYER, w_layer.to},
                           {DNNL_ARG_WEIGHTS_ITER, w_iter.to},
                           {DNNL_ARG_BIAS, bias_sum},
                           {DNNL_ARG_DST_LAYER, layer.output.value},
                           {DNNL_ARG_DST_ITER, layer.last_hidden},
                           {DNNL_ARG_DST_ITER_C, layer.last_cell},
                           {DNNL_ARG_DIFF_DST_LAYER, layer.output.gradient},
                           {DNNL_ARG_DIFF_DST_ITER, zero_state},
                           {DNNL_ARG_DIFF_DST_ITER_C, zero_state},
                           {DNNL_ARG_WORKSPACE, workspace},
                           {DNNL_ARG_DIFF_SRC_LAYER, dx},
                           {DNNL_ARG_DIFF_SRC_ITER, unused_hidden},
                           {DNNL_ARG_DIFF_SRC_ITER_C, unused_cell},
                           {DNNL_ARG_DIFF_WEIGHTS_LAYER, dw_layer.from},
                           {DNNL_ARG_DIFF_WEIGHTS_ITER, dw_iter.from},
                           {DNNL_ARG_DIFF_BIAS, diff_bias}},
                          {}});
  if (dw_layer.step) backward.push_back(*dw_layer.step);
  if (dw_iter.step) backward.push_back(*dw_iter.step);
  backward.push_back(loop_step([diff_bias, a = b_ih.gradient, b = b_hh.gradient] {
    copy(diff_bias, a);
    copy(diff_bias, b);
  }));
  return layer;
}

}  // namespace dlcbench::onednn
