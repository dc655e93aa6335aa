#include "backends/reference/tensor.h"

#include <utility>

namespace dlcbench::reference {

Tensor::Tensor(std::vector<std::int64_t> dims) : shape(std::move(dims)) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  values.assign(static_cast<std::size_t>(n), 0.0f);
}

Parameter& ParameterList::add(std::string name, std::vector<std::int64_t> shape) {
  Parameter& p = items.emplace_back();
  p.name = std::move(name);
  p.value = Tensor(shape);
  p.grad = Tensor(shape);
  p.velocity = Tensor(std::move(shape));
  return p;
}

std::int64_t ParameterList::count() const {
  std::int64_t n = 0;
  for (const auto& p : items) n += p.value.numel();
  return n;
}

}  // namespace dlcbench::reference
