// The cuda back end: the networks of src/workloads/models trained on the GPU
// with cuBLAS and cuDNN, in FP32, timed with CUDA events.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace dlcbench::cuda {

std::unique_ptr<Backend> make_cuda_backend(int threads);

}  // namespace dlcbench::cuda
