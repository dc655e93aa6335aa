#include "backends/cuda/cuda_check.h"

#include <fmt/format.h>

#include "backends/cuda/device_memory.h"

namespace dlcbench::cuda {
namespace {

std::string location(const char* file, int line) {
  std::string f = file;
  const auto slash = f.find("src/");
  return fmt::format("{}:{}", slash == std::string::npos ? f : f.substr(slash), line);
}

std::string free_memory_text() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return "";
  return fmt::format(" ({:.2f} GiB of {:.2f} GiB free)", static_cast<double>(free) / (1 << 30),
                     static_cast<double>(total) / (1 << 30));
}

}  // namespace

std::string explain_cuda_status(cudaError_t status) {
  switch (status) {
    case cudaErrorInsufficientDriver:
      return "the NVIDIA driver is missing or older than this build's CUDA runtime " +
             std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
             ": install or update the driver (`nvidia-smi` shows its CUDA version); in a container, the driver "
             "libraries must come from the host (see `dlcbench doctor`)";
    case cudaErrorNoDevice:
      return "no CUDA GPU is visible: check `nvidia-smi`, CUDA_VISIBLE_DEVICES, and in a container the /dev/nvidia* "
             "devices (see `dlcbench doctor`)";
    case cudaErrorDevicesUnavailable:
      return "the GPU is busy: it is in exclusive-process compute mode and another process holds it (`nvidia-smi` "
             "lists it); wait for it or change the mode";
    case cudaErrorMemoryAllocation:
      return "out of GPU memory" + free_memory_text() +
             ": another process may hold it (`nvidia-smi`), or give a smaller batch or size";
    case cudaErrorSystemDriverMismatch:
      return "the NVIDIA kernel module and the user-space driver library differ in version: reload the driver or "
             "reboot";
    case cudaErrorUnknown:
      return "the CUDA driver failed without a reason (cudaErrorUnknown), most often because /dev/nvidia-uvm is "
             "missing: load the nvidia-uvm module (`nvidia-modprobe -u -c=0`), and in a container pass "
             "/dev/nvidia-uvm too (see `dlcbench doctor`)";
    case cudaErrorCompatNotSupportedOnDevice:
      return "the CUDA forward-compatibility library does not support this GPU: use a driver that supports the "
             "runtime directly";
    default:
      return fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
  }
}

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
  throw GpuError(fmt::format("{}: {} failed at {}", explain_cuda_status(status), what, location(file, line)));
}

void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
  std::string cause = cublasGetStatusString(status);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) cause = "out of GPU memory" + free_memory_text() + " (cuBLAS)";
  if (status == CUBLAS_STATUS_NOT_INITIALIZED)
    cause += ": cuBLAS could not start, usually because the driver or the GPU is unavailable";
  throw GpuError(fmt::format("{}: {} failed at {}", cause, what, location(file, line)));
}

void throw_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line) {
  std::string cause = cudnnGetErrorString(status);
  if (status == CUDNN_STATUS_ALLOC_FAILED) cause = "out of GPU memory" + free_memory_text() + " (cuDNN)";
  throw GpuError(fmt::format("{}: {} failed at {}", cause, what, location(file, line)));
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMalloc(&data_, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear it, so later calls do not report it again
    throw GpuError(fmt::format("out of GPU memory: {:.2f} GiB asked for{}: another process may hold it "
                               "(`nvidia-smi`), or give a smaller batch or size",
                               static_cast<double>(bytes) / (1 << 30), free_memory_text()));
  }
  if (status != cudaSuccess) throw_cuda_error(status, "cudaMalloc", __FILE__, __LINE__);
}

DeviceMemory::~DeviceMemory() {
  if (data_) cudaFree(data_);
}

PinnedMemory::PinnedMemory(std::size_t bytes) {
  const cudaError_t status = cudaMallocHost(&data_, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    // Host memory, locked: the container's memory limit or the locked-memory
    // limit counts it, not the GPU.
    throw GpuError(fmt::format("cannot lock {:.2f} GiB of host memory for GPU copies (cudaMallocHost): the "
                               "machine's or the container's memory limit is too small for it; give a smaller size",
                               static_cast<double>(bytes) / (1 << 30)));
  }
  if (status != cudaSuccess) throw_cuda_error(status, "cudaMallocHost", __FILE__, __LINE__);
}

PinnedMemory::~PinnedMemory() {
  if (data_) cudaFreeHost(data_);
}

}  // namespace dlcbench::cuda
