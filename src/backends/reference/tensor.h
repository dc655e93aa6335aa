// The reference engine's data: plain float arrays with a shape, and the
// trainable parameters built from them. Everything is row-major and owned by
// the layer that writes it; nothing is allocated once training has started.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace dlcbench::reference {

struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;

  Tensor() = default;
  explicit Tensor(std::vector<std::int64_t> dims);
  std::int64_t numel() const { return static_cast<std::int64_t>(values.size()); }
  float* data() { return values.data(); }
  const float* data() const { return values.data(); }
};

// A trainable tensor with its gradient and SGD's momentum buffer.
struct Parameter {
  std::string name;  // the shared layout's name (backends/parameters.h)
  Tensor value, grad, velocity;
  bool velocity_started = false;  // torch.optim.SGD starts the buffer at the first gradient
};

// A network's parameters in the order its layers create them, which is the
// shared layout's order. A deque, so the layers' references stay valid as
// parameters are added.
struct ParameterList {
  std::deque<Parameter> items;

  Parameter& add(std::string name, std::vector<std::int64_t> shape);
  std::int64_t count() const;
};

}  // namespace dlcbench::reference
