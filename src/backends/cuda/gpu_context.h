// What every layer of a cuda training session shares: device 0, one stream,
// one cuBLAS handle and one cuDNN handle bound to that stream, with the math
// modes that keep FP32 as FP32 (no TF32), so the results can be compared
// with the CPU back ends. Made once per back end, before any session.
#pragma once

#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

namespace dlcbench::cuda {

class GpuContext {
 public:
  // Throws GpuError naming the cause (no driver, no GPU, busy, ...).
  GpuContext();
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  const std::string& device_name() const { return device_name_; }
  // Waits for everything queued on the stream; a fault inside a kernel shows
  // here as GpuError.
  void synchronize() const;

 private:
  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
};

}  // namespace dlcbench::cuda
