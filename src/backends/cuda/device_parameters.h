// A network's trainable tensors on the device, in the shared layout
// (backends/parameters.h): all values in one array, all gradients in
// another and all momentum buffers in a third, each tensor at the same
// offset in the three. So the optimiser step and the gradient norm are one
// kernel each over all parameters, and parameters()/set_parameters() are one
// copy each. The layers take their tensors in the layout's order, by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "backends/cuda/device_memory.h"
#include "backends/parameters.h"

namespace dlcbench::cuda {

// One tensor's place: value and gradient [count] on the device.
struct DeviceTensor {
  float* value = nullptr;
  float* grad = nullptr;
  std::int64_t count = 0;
};

class DeviceParameters {
 public:
  // Allocates the tensors of `layout` (values empty), gradients zeroed.
  explicit DeviceParameters(const ParameterSet& layout);

  // The next tensor of the layout, which must be `name` with `shape`:
  // a network built in another order is a logic_error here, not wrong
  // weights later.
  DeviceTensor take(const std::string& name, const std::vector<std::int64_t>& shape);
  // logic_error unless every tensor of the layout was taken.
  void check_all_taken() const;

  // Copies to and from the host (synchronously, on `stream`). Setting them
  // starts the momentum again, as set_parameters() promises.
  ParameterSet download(cudaStream_t stream) const;
  void upload(const ParameterSet& given, cudaStream_t stream);

  float* values() const { return values_.data(); }
  float* grads() const { return grads_.data(); }
  float* velocity() const { return velocity_.data(); }
  // Length of the three arrays: the tensors and the padding that aligns each
  // to 256 bytes (zero in all three, so it changes no norm and no update).
  std::int64_t size() const { return static_cast<std::int64_t>(values_.size()); }
  // Trainable values, padding excluded.
  std::int64_t count() const;
  // Whether the optimiser has made its first step since the values were set
  // (torch.optim.SGD starts its momentum buffer at the first gradient).
  bool momentum_started = false;

 private:
  struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    std::int64_t offset = 0, count = 0;
  };
  std::vector<Entry> entries_;
  std::size_t taken_ = 0;
  DeviceArray<float> values_, grads_, velocity_;
};

}  // namespace dlcbench::cuda
