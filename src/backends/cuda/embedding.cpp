#include "backends/cuda/embedding.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/kernels.h"

namespace dlcbench::cuda {

Embedding::Embedding(const GpuContext& gpu, DeviceParameters& params, const std::string& name,
                     std::int64_t vocabulary, std::int64_t dim, std::int64_t rows)
    : gpu_(&gpu),
      vocabulary_(vocabulary),
      dim_(dim),
      rows_(rows),
      weight_(params.take(name + ".weight", {vocabulary, dim})),
      y_(static_cast<std::size_t>(rows * dim)) {}

float* Embedding::forward(const std::int64_t* tokens) {
  tokens_ = tokens;
  kernels::embedding_forward(tokens, rows_, weight_.value, dim_, y_.data(), gpu_->stream());
  return y_.data();
}

void Embedding::backward(const float* dy) {
  DLCBENCH_CUDA(cudaMemsetAsync(weight_.grad, 0, static_cast<std::size_t>(vocabulary_ * dim_) * sizeof(float),
                                gpu_->stream()));
  kernels::embedding_backward(tokens_, rows_, dy, dim_, weight_.grad, gpu_->stream());
}

}  // namespace dlcbench::cuda
