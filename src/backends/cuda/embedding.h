// A word embedding, y[r] = weight[token[r]], with weight [vocabulary, dim].
#pragma once

#include <cstdint>
#include <string>

#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

class Embedding {
 public:
  // Takes name.weight [vocabulary, dim].
  Embedding(const GpuContext& gpu, DeviceParameters& params, const std::string& name, std::int64_t vocabulary,
            std::int64_t dim, std::int64_t rows);

  // tokens [rows] on the device, each in [0, vocabulary) (the session checks
  // them on the host), unchanged until backward() -> y [rows, dim].
  float* forward(const std::int64_t* tokens);
  // dy [rows, dim] -> the weight's gradient: zero but for the rows of the
  // tokens seen, which get the sum of their dy.
  void backward(const float* dy);

 private:
  const GpuContext* gpu_;
  std::int64_t vocabulary_, dim_, rows_;
  DeviceTensor weight_;
  DeviceArray<float> y_;
  const std::int64_t* tokens_ = nullptr;
};

}  // namespace dlcbench::cuda
