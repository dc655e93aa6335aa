// Finding and loading the CUDA plugin (gpu_plugin.h), and the checks that
// tell a user why GPU cases cannot run here before any of them starts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/cuda/gpu_plugin.h"
#include "core/image_files.h"

namespace dlcbench {

// Whether this build has the CUDA plugin (CUDA toolkit found at build time).
bool gpu_plugin_built();

// Why this build has no CUDA plugin and how to get one ("the CUDA plugin is
// not compiled in: ..."); empty where it has one.
std::string gpu_plugin_not_built();

// The plugin file: $DLCBENCH_CUDA_PLUGIN, else libdlcbench-cuda.so beside
// the running dlcbench binary (in images too).
std::filesystem::path gpu_plugin_path();

// Loads the plugin once; later calls return the same. Throws GpuError
// saying why (not built, file missing, a library it needs missing).
const GpuPlugin& gpu_plugin();

// What the host's NVIDIA driver says, without loading the plugin or making
// a CUDA context (cheap; safe in the orchestrator): the driver library and
// its CUDA version, the /dev/nvidia* device nodes, the number of GPUs.
struct GpuDriverReport {
  bool plugin_built = false;
  std::string plugin_path;
  bool plugin_present = false;
  std::string driver_library;         // resolved path of libcuda.so.1; empty: not found
  int driver_cuda_version = 0;        // e.g. 13000 for 13.0; 0: unknown
  int runtime_cuda_version = 0;       // the CUDA runtime the plugin was built for
  std::vector<std::string> device_nodes;  // /dev/nvidiactl, /dev/nvidia0, ...
  int gpu_count = -1;                 // -1: not asked (no driver)
  std::string problem;                // why GPU cases cannot run; empty: they can
  nlohmann::json to_json() const;
};
GpuDriverReport gpu_driver_report();

// gpu_driver_report().problem, checked once per process.
std::string gpu_unavailable_reason();

// "13.0" for 13000.
std::string cuda_version_text(int version);

// Why a driver that supports CUDA `driver_cuda_version` cannot run this
// build's runtime (both as 13000 for 13.0; 0: unknown); empty where it can.
std::string driver_version_problem(int driver_cuda_version, int runtime_cuda_version);

// What a worker image needs beyond the dlcbench binary for GPU cases: the
// plugin (at its image path beside the binary) with its libraries, and the
// libraries cuDNN and cuBLAS open at run time (cuDNN's engine libraries,
// NVRTC), which ldd does not list. Not the driver: that comes from the host.
std::vector<ImageExtra> gpu_image_extras();

}  // namespace dlcbench
