#include <dlfcn.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/gpu_micro.h"
#include "backends/cuda/nvml_facts.h"
#include "backends/cuda/gpu_peak.h"

namespace dlcbench::cuda {
namespace {

std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  DLCBENCH_CUDA(cudaDeviceGetAttribute(&value, which, device));
  return value;
}

const char* compute_mode_name(int mode) {
  switch (mode) {
    case cudaComputeModeDefault: return "default";
    case cudaComputeModeExclusiveProcess: return "exclusive-process";
    case cudaComputeModeProhibited: return "prohibited";
    default: return "unknown";
  }
}

// The folder of the file a loaded function comes from, links resolved.
std::optional<std::filesystem::path> real_folder_of(void* function) {
  Dl_info info{};
  if (dladdr(function, &info) == 0 || !info.dli_fname) return std::nullopt;
  std::error_code ec;
  auto file = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) return std::nullopt;
  return file.parent_path();
}

}  // namespace

nlohmann::json build_info() {
  int cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  cublasGetProperty(MAJOR_VERSION, &cublas_major);
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  const std::size_t cudnn = cudnnGetVersion();
  return {{"cuda_runtime_built", version_text(CUDART_VERSION)},
          {"cublas", fmt::format("{}.{}.{}", cublas_major, cublas_minor, cublas_patch)},
          {"cudnn", fmt::format("{}.{}.{}", cudnn / 10000, cudnn / 100 % 100, cudnn % 100)},
          {"cudnn_built", fmt::format("{}.{}.{}", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL)}};
}

void preload_cudnn_libraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    // NVRTC, which cuDNN's runtime-compiled engines open by name, from the
    // CUDA runtime's folder: NVIDIA's packages put cuDNN in the system's
    // library folder and NVRTC beside the runtime, which the host's loader
    // cache knows and an image has no cache for.
    if (const auto cuda_folder = real_folder_of(reinterpret_cast<void*>(&cudaRuntimeGetVersion)))
      for (const std::string& name : {fmt::format("libnvrtc-builtins.so.{}.{}", CUDART_VERSION / 1000,
                                                 CUDART_VERSION % 1000 / 10),
                                     fmt::format("libnvrtc.so.{}", CUDART_VERSION / 1000)})
        dlopen((*cuda_folder / name).c_str(), RTLD_NOW | RTLD_GLOBAL);
    // The real folder: images hold cuDNN's files there, not under every
    // name the host's symbolic links give them.
    const auto cudnn_folder = real_folder_of(reinterpret_cast<void*>(&cudnnGetVersion));
    if (!cudnn_folder) return;
    const std::filesystem::path& folder = *cudnn_folder;
    // Dependencies first: the graph library, then the engines, then the
    // operation libraries that use them. A library that is absent (or whose
    // own needs are, as NVRTC for runtime-compiled engines) stays unloaded,
    // and cuDNN reports it when an operation needs it.
    for (const char* name : {"libcudnn_graph", "libcudnn_engines_precompiled", "libcudnn_engines_runtime_compiled",
                             "libcudnn_heuristic", "libcudnn_ops", "libcudnn_cnn", "libcudnn_adv"}) {
      const std::string file = (folder / fmt::format("{}.so.{}", name, CUDNN_MAJOR)).string();
      dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
  });
}

nlohmann::json probe_device() {
  preload_cudnn_libraries();
  // The first probe of a process starts CUDA (the driver, then device 0's
  // context): what a GPU job pays before its first kernel.
  static std::optional<double> cuda_init_seconds;
  const auto init_started = std::chrono::steady_clock::now();
  int count = 0;
  DLCBENCH_CUDA(cudaGetDeviceCount(&count));
  if (count == 0) throw GpuError(explain_cuda_status(cudaErrorNoDevice));
  DLCBENCH_CUDA(cudaSetDevice(0));
  // Makes the context now: a GPU busy in exclusive mode says so here.
  DLCBENCH_CUDA(cudaFree(nullptr));
  if (!cuda_init_seconds)
    cuda_init_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - init_started).count();
  cudaDeviceProp p{};
  DLCBENCH_CUDA(cudaGetDeviceProperties(&p, 0));
  int driver = 0, runtime = 0;
  DLCBENCH_CUDA(cudaDriverGetVersion(&driver));
  DLCBENCH_CUDA(cudaRuntimeGetVersion(&runtime));
  std::size_t free = 0, total = 0;
  DLCBENCH_CUDA(cudaMemGetInfo(&free, &total));
  std::array<char, 32> bus{};
  DLCBENCH_CUDA(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), 0));
  std::string uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    uuid += fmt::format("{:02x}", static_cast<unsigned char>(p.uuid.bytes[i]));
    if (i == 3 || i == 5 || i == 7 || i == 9) uuid += '-';
  }
  nlohmann::json d = {{"name", p.name},
                      {"uuid", uuid},
                      {"pci_bus", bus.data()},
                      {"devices_visible", count},
                      {"compute_capability", fmt::format("{}.{}", p.major, p.minor)},
                      {"cc_major", p.major},
                      {"cc_minor", p.minor},
                      {"multiprocessors", p.multiProcessorCount},
                      {"sm_clock_max_mhz", attribute(cudaDevAttrClockRate, 0) / 1000},
                      {"memory_clock_max_mhz", attribute(cudaDevAttrMemoryClockRate, 0) / 1000},
                      {"memory_bus_bits", attribute(cudaDevAttrGlobalMemoryBusWidth, 0)},
                      {"memory_total_bytes", total},
                      {"memory_free_bytes", free},
                      {"compute_mode", compute_mode_name(attribute(cudaDevAttrComputeMode, 0))},
                      {"ecc", p.ECCEnabled != 0},
                      {"driver_cuda_version", version_text(driver)},
                      {"runtime_cuda_version", version_text(runtime)},
                      {"cuda_init_seconds", *cuda_init_seconds}};
  d.update(build_info());
  d["memory_limit_bytes_per_s"] = memory_bytes_per_second(d["memory_clock_max_mhz"].get<double>() * 1e6,
                                                          d["memory_bus_bits"].get<int>());
  // Clocks now, persistence mode and the PCIe link, from the driver.
  const nlohmann::json nvml = nvml_device_facts(bus.data());
  d["nvml"] = nvml;
  if (nvml.contains("pcie_generation_max") && nvml.contains("pcie_width_max"))
    if (const auto pcie = pcie_bytes_per_second(nvml["pcie_generation_max"].get<int>(),
                                                nvml["pcie_width_max"].get<int>()))
      d["pcie_limit_bytes_per_s"] = *pcie;
  return d;
}

}  // namespace dlcbench::cuda
