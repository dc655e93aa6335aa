#include "backends/cuda/gpu_context.h"

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/gpu_micro.h"
#include "core/errors.h"

namespace dlcbench::cuda {

GpuContext::GpuContext() {
  int count = 0;
  DLCBENCH_CUDA(cudaGetDeviceCount(&count));
  if (count == 0) throw GpuError(explain_cuda_status(cudaErrorNoDevice));
  DLCBENCH_CUDA(cudaSetDevice(0));
  cudaDeviceProp properties{};
  DLCBENCH_CUDA(cudaGetDeviceProperties(&properties, 0));
  device_name_ = properties.name;
  // The destructor does not run for a constructor that throws: each handle
  // made so far is released here before the error goes on.
  try {
    DLCBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    DLCBENCH_CUBLAS(cublasCreate(&cublas_));
    DLCBENCH_CUBLAS(cublasSetStream(cublas_, stream_));
    // FP32 products in FP32: the default mode, which never uses TF32 tensor
    // cores (that takes CUBLAS_TF32_TENSOR_OP_MATH).
    DLCBENCH_CUBLAS(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
    preload_cudnn_libraries();  // before cuDNN looks for its engine libraries
    DLCBENCH_CUDNN(cudnnCreate(&cudnn_));
    DLCBENCH_CUDNN(cudnnSetStream(cudnn_, stream_));
  } catch (...) {
    if (cudnn_) cudnnDestroy(cudnn_);
    if (cublas_) cublasDestroy(cublas_);
    if (stream_) cudaStreamDestroy(stream_);
    throw;
  }
}

GpuContext::~GpuContext() {
  cudnnDestroy(cudnn_);
  cublasDestroy(cublas_);
  cudaStreamDestroy(stream_);
}

void GpuContext::synchronize() const { DLCBENCH_CUDA(cudaStreamSynchronize(stream_)); }

}  // namespace dlcbench::cuda
