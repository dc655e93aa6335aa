// The pieces every layer of the oneDNN back end is made of: the engine and
// stream, a value with its gradient, a trainable tensor, and the steps a
// network runs (a primitive with its arguments, or a loop written here).
// Everything is created once when the network is built, so a training step
// only runs steps and allocates nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace dlcbench::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

// An activation and the gradient of the loss with respect to it, in the same
// layout. The gradient is empty where nothing needs it (the network input).
struct Activation {
  memory value, gradient;
  memory::desc desc() const { return value.get_desc(); }
};

// A trainable tensor. `value`, `gradient` and `momentum` share the layout a
// primitive prefers (possibly blocked and padded with zeros); `shared`
// describes the same numbers in the shared layout of backends/parameters.h,
// so a reorder converts between the two.
struct Parameter {
  std::string name;
  std::vector<std::int64_t> shape;  // in the shared layout
  memory::desc shared;
  memory value, gradient, momentum;
};

// One thing a network does in a step: a primitive with its arguments, or a
// loop written here.
struct Step {
  std::optional<dnnl::primitive> primitive;
  std::unordered_map<int, memory> args;
  std::function<void()> loop;
  void run(dnnl::stream& stream) const;
};

// Moves data between the layout one side has and the layout a primitive
// wants; does nothing when they agree (then `from` and `to` are the same
// memory).
struct Relayout {
  memory from, to;
  std::optional<Step> step;
};
// `from` exists; `to` is created in `want` unless that is from's layout.
Relayout relayout_from(Context& context, const memory& from, const memory::desc& want);
// `to` exists; `from` is created in `have` unless that is to's layout.
Relayout relayout_to(Context& context, const memory::desc& have, const memory& to);

memory make_memory(Context& context, const memory::desc& desc);  // zero-filled
memory::desc plain_desc(const std::vector<std::int64_t>& dims);  // row-major
std::size_t float_count(const memory& m);                        // with any padding
float* floats(const memory& m);

// A network's program: forward steps in order, then the backward groups in
// reverse order of creation (each group's steps in their own order), and its
// parameters in the shared layout's order.
struct Program {
  std::vector<Step> forward;
  std::deque<std::vector<Step>> backward;
  std::deque<Parameter> parameters;

  std::vector<Step>& new_backward_group() { return backward.emplace_back(); }
  void run_forward(Context& context);
  void run_backward(Context& context);
};

// A parameter `name` of `shape` (the shared layout, described by `shared`)
// kept in layout `desc`, with a zero gradient and momentum.
Parameter& add_parameter(Program& program, Context& context, std::string name, std::vector<std::int64_t> shape,
                         const memory::desc& shared, const memory::desc& desc);

}  // namespace dlcbench::onednn
