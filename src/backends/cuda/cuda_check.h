// Errors from the CUDA runtime, cuBLAS and cuDNN as GpuError, with the cause
// in words: out of memory says how much was asked and what is free, a busy
// GPU says so. Every call into CUDA goes through one of these macros, so no
// status is ignored.
#pragma once

#include <string>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "core/errors.h"

namespace dlcbench::cuda {

// Throws GpuError for a failed call: `what` is the call as written.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line);

// The words for a runtime status that users meet (no driver, no device, busy,
// out of memory), with the fix; the runtime's own text otherwise.
std::string explain_cuda_status(cudaError_t status);

}  // namespace dlcbench::cuda

#define DLCBENCH_CUDA(call)                                                                       \
  do {                                                                                            \
    const cudaError_t dlcbench_status_ = (call);                                                  \
    if (dlcbench_status_ != cudaSuccess)                                                          \
      ::dlcbench::cuda::throw_cuda_error(dlcbench_status_, #call, __FILE__, __LINE__);            \
  } while (0)

#define DLCBENCH_CUBLAS(call)                                                                     \
  do {                                                                                            \
    const cublasStatus_t dlcbench_status_ = (call);                                               \
    if (dlcbench_status_ != CUBLAS_STATUS_SUCCESS)                                                \
      ::dlcbench::cuda::throw_cublas_error(dlcbench_status_, #call, __FILE__, __LINE__);          \
  } while (0)

#define DLCBENCH_CUDNN(call)                                                                      \
  do {                                                                                            \
    const cudnnStatus_t dlcbench_status_ = (call);                                                \
    if (dlcbench_status_ != CUDNN_STATUS_SUCCESS)                                                 \
      ::dlcbench::cuda::throw_cudnn_error(dlcbench_status_, #call, __FILE__, __LINE__);           \
  } while (0)

// A kernel launch's own errors (bad configuration) show at once; faults
// during the kernel show at the next synchronising call.
#define DLCBENCH_CUDA_LAUNCHED() DLCBENCH_CUDA(cudaGetLastError())
