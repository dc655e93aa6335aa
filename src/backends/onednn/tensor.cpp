#include "backends/onednn/tensor.h"

#include <cstring>

namespace dlcbench::onednn {

void Step::run(dnnl::stream& stream) const {
  if (primitive) {
    primitive->execute(stream, args);
    return;
  }
  stream.wait();  // a loop reads what the primitives before it wrote
  loop();
}

namespace {

Step reorder_step(const memory& from, const memory& to) {
  return Step{dnnl::reorder(from, to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, {}};
}

}  // namespace

Relayout relayout_from(Context& context, const memory& from, const memory::desc& want) {
  if (from.get_desc() == want) return {from, from, std::nullopt};
  memory to = make_memory(context, want);
  return {from, to, reorder_step(from, to)};
}

Relayout relayout_to(Context& context, const memory::desc& have, const memory& to) {
  if (to.get_desc() == have) return {to, to, std::nullopt};
  memory from = make_memory(context, have);
  return {from, to, reorder_step(from, to)};
}

memory make_memory(Context& context, const memory::desc& desc) {
  memory m(desc, context.engine);
  std::memset(m.get_data_handle(), 0, desc.get_size());
  return m;
}

memory::desc plain_desc(const std::vector<std::int64_t>& dims) {
  memory::dims d(dims.begin(), dims.end());
  memory::dims strides(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) strides[i - 1] = strides[i] * d[i];
  return memory::desc(d, memory::data_type::f32, strides);
}

std::size_t float_count(const memory& m) { return m.get_desc().get_size() / sizeof(float); }

float* floats(const memory& m) { return static_cast<float*>(m.get_data_handle()); }

void Program::run_forward(Context& context) {
  for (const auto& step : forward) step.run(context.stream);
  context.stream.wait();
}

void Program::run_backward(Context& context) {
  for (auto group = backward.rbegin(); group != backward.rend(); ++group)
    for (const auto& step : *group) step.run(context.stream);
  context.stream.wait();
}

Parameter& add_parameter(Program& program, Context& context, std::string name, std::vector<std::int64_t> shape,
                         const memory::desc& shared, const memory::desc& desc) {
  return program.parameters.emplace_back(Parameter{std::move(name), std::move(shape), shared,
                                                   make_memory(context, desc), make_memory(context, desc),
                                                   make_memory(context, desc)});
}

}  // namespace dlcbench::onednn
