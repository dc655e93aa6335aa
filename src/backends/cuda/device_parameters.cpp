#include "backends/cuda/device_parameters.h"

#include <stdexcept>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"

namespace dlcbench::cuda {
namespace {

constexpr std::int64_t kAlignment = 64;  // floats: 256 bytes, what cuBLAS and cuDNN prefer

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, "x")); }

std::int64_t total_size(const ParameterSet& layout) {
  std::int64_t size = 0;
  for (const auto& p : layout) size += (p.numel() + kAlignment - 1) / kAlignment * kAlignment;
  return size;
}

}  // namespace

DeviceParameters::DeviceParameters(const ParameterSet& layout)
    : values_(static_cast<std::size_t>(total_size(layout))),
      grads_(values_.size()),
      velocity_(values_.size()) {
  std::int64_t offset = 0;
  for (const auto& p : layout) {
    entries_.push_back({p.name, p.shape, offset, p.numel()});
    offset += (p.numel() + kAlignment - 1) / kAlignment * kAlignment;
  }
  const std::size_t bytes = values_.size() * sizeof(float);
  DLCBENCH_CUDA(cudaMemset(values_.data(), 0, bytes));
  DLCBENCH_CUDA(cudaMemset(grads_.data(), 0, bytes));
  DLCBENCH_CUDA(cudaMemset(velocity_.data(), 0, bytes));
  DLCBENCH_CUDA(cudaDeviceSynchronize());
}

DeviceTensor DeviceParameters::take(const std::string& name, const std::vector<std::int64_t>& shape) {
  if (taken_ >= entries_.size())
    throw std::logic_error(fmt::format("the cuda network asks for {} beyond the layout's {} tensors", name,
                                       entries_.size()));
  const Entry& e = entries_[taken_];
  if (e.name != name || e.shape != shape)
    throw std::logic_error(fmt::format("the cuda network's parameter {} is {} {}, the layout's {} {}", taken_, name,
                                       shape_text(shape), e.name, shape_text(e.shape)));
  ++taken_;
  return {values_.data() + e.offset, grads_.data() + e.offset, e.count};
}

void DeviceParameters::check_all_taken() const {
  if (taken_ != entries_.size())
    throw std::logic_error(fmt::format("the cuda network uses {} of the layout's {} tensors", taken_, entries_.size()));
}

std::int64_t DeviceParameters::count() const {
  std::int64_t n = 0;
  for (const auto& e : entries_) n += e.count;
  return n;
}

ParameterSet DeviceParameters::download(cudaStream_t stream) const {
  std::vector<float> all(values_.size());
  DLCBENCH_CUDA(cudaMemcpyAsync(all.data(), values_.data(), all.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  DLCBENCH_CUDA(cudaStreamSynchronize(stream));
  ParameterSet set;
  for (const auto& e : entries_)
    set.push_back({e.name, e.shape, std::vector<float>(all.begin() + e.offset, all.begin() + e.offset + e.count)});
  return set;
}

void DeviceParameters::upload(const ParameterSet& given, cudaStream_t stream) {
  if (given.size() != entries_.size())
    throw std::logic_error(fmt::format("{} tensors given for the cuda network's {}", given.size(), entries_.size()));
  std::vector<float> all(values_.size(), 0.0f);
  for (std::size_t i = 0; i < given.size(); ++i) {
    const Entry& e = entries_[i];
    if (given[i].name != e.name || given[i].shape != e.shape ||
        static_cast<std::int64_t>(given[i].values.size()) != e.count)
      throw std::logic_error(fmt::format("tensor {} given is {} {} with {} values, the cuda network's {} {}", i,
                                         given[i].name, shape_text(given[i].shape), given[i].values.size(), e.name,
                                         shape_text(e.shape)));
    std::copy(given[i].values.begin(), given[i].values.end(), all.begin() + e.offset);
  }
  DLCBENCH_CUDA(cudaMemcpyAsync(values_.data(), all.data(), all.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  DLCBENCH_CUDA(cudaStreamSynchronize(stream));
  momentum_started = false;
}

}  // namespace dlcbench::cuda
