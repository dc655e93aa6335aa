// The boundary between dlcbench and its CUDA code. Everything that needs the
// CUDA runtime, cuBLAS or cuDNN lives in a plugin, libdlcbench-cuda.so, built
// beside the dlcbench binary where the toolkit is installed and loaded only
// by a worker that runs a GPU case. So the dlcbench binary, and the images of
// CPU runs, never carry cuBLAS and cuDNN (about 1 GB), and a machine without
// the toolkit runs everything else.
//
// Both sides are built from the same sources by the same compiler in one
// CMake project, so plain C++ types cross the boundary; kGpuPluginAbi guards
// against a plugin left over from another build.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

inline constexpr int kGpuPluginAbi = 1;
inline constexpr const char* kGpuPluginFile = "libdlcbench-cuda.so";
inline constexpr const char* kGpuPluginEntry = "dlcbench_gpu_plugin";

struct GpuPlugin {
  int abi = kGpuPluginAbi;
  // Versions the plugin was built with: {"cuda_runtime": "13.0", "cublas": ..., "cudnn": ...}.
  nlohmann::json (*build_info)();
  // Opens device 0 and describes it (name, compute capability, memory,
  // driver and runtime versions, clocks, the libraries in use). Throws
  // GpuError naming the cause: no driver, a driver older than the runtime,
  // no GPU, a GPU busy in exclusive mode.
  nlohmann::json (*probe)();
  // The cuda back end (cuBLAS and cuDNN); `threads` is for the host side.
  std::unique_ptr<Backend> (*make_backend)(int threads);
  // gpu-gemm (variants fp32, tf32, bf16, fp16; size n) and gpu-copy
  // (variants h2d-pinned, h2d-pageable, d2h-pinned, d2h-pageable, d2d; size
  // in bytes).
  std::unique_ptr<MicroBenchmark> (*make_gpu_gemm)(const MicroParams& params);
  std::unique_ptr<MicroBenchmark> (*make_gpu_copy)(const MicroParams& params);
};

}  // namespace dlcbench

// The plugin's one exported symbol.
extern "C" const dlcbench::GpuPlugin* dlcbench_gpu_plugin();
