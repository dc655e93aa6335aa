// The networks as LibTorch modules in inference mode, one example per call.
// No LibTorch header here: the file that includes it compiles as C++17
// under Clang (see CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "workloads/models/model_spec.h"

namespace dlcbench::torch_backend {

struct TorchInference {
  std::function<std::int32_t(const float*)> infer;
  std::size_t input_floats = 0;
  std::string library;
};

// Sets LibTorch's intra-op threads to 1: the server's parallelism is its
// inference threads, one request each, as a batch-1 server is run.
TorchInference make_torch_inference(const models::ModelSpec& spec);

}  // namespace dlcbench::torch_backend
