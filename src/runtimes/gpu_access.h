// How a container gets the GPU. With the NVIDIA container toolkit, the
// engine does it (docker --gpus, podman's CDI device nvidia.com/gpu=all);
// without it dlcbench does what the toolkit does for compute: it passes the
// /dev/nvidia* device nodes and binds the driver's user-space libraries
// (libcuda and the libnvidia-* it loads) read-only at their host paths. The
// container keeps the runtime's default capabilities and seccomp profile.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

struct GpuDeviceNode {
  std::string path;  // e.g. /dev/nvidia0
  unsigned major = 0, minor = 0;
};

struct GpuPassthrough {
  std::vector<GpuDeviceNode> devices;
  std::vector<std::string> libraries;  // driver files, bound at the same path
  std::string library_dir;             // the driver's folder, for LD_LIBRARY_PATH
  nlohmann::json to_json() const;
};

// The driver's user-space files among `names` (the entries of its folder):
// libcuda, libcudadebugger and libnvidia-*, versioned names only.
std::vector<std::string> driver_library_names(const std::vector<std::string>& names);

// Whether a /dev entry name is a GPU device node the CUDA driver opens.
bool is_gpu_device_node(const std::string& name);

// The host's device nodes and driver libraries. Throws EnvironmentUnavailable
// when there are none (no driver, no GPU), naming the cause.
GpuPassthrough host_gpu_passthrough();

// The toolkit's pieces: docker --gpus needs nvidia-container-runtime-hook
// on the PATH; podman needs a CDI specification of
// nvidia.com/gpu (nvidia-ctk cdi generate).
bool docker_gpu_toolkit_present();
bool podman_gpu_cdi_present();

// The method an environment uses: "none" (no GPU case planned, or gpus=none),
// "toolkit", or "nodes". `requested` is the gpus= option ("auto", "all",
// "nodes", "none"); gpus=all without the toolkit is EnvironmentUnavailable.
std::string gpu_method(const std::string& environment, const std::string& requested, bool gpu_cases);

}  // namespace dlcbench
