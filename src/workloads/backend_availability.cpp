// Which back ends this build's worker has, told to the orchestrator without
// loading any: the build records it as compile definitions
// (DLCBENCH_HAVE_TORCH, DLCBENCH_HAVE_ONEDNN), and the CUDA plugin is a file.
#include <string>

#include "gpu/gpu_loader.h"
#include "workloads/registry.h"

namespace dlcbench {

std::string backend_unavailable(const std::string& name) {
#if !DLCBENCH_HAVE_TORCH
  if (name == "torch")
    return "the torch back end is not compiled in (this dlcbench was built without LibTorch): use --backends "
           "reference (CPU) or cuda (GPU), or rebuild with LibTorch (Debian's libtorch-dev, or a PyTorch wheel's "
           "with -DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')\")";
#endif
#if !DLCBENCH_HAVE_ONEDNN
  if (name == "onednn")
    return "the onednn back end is not compiled in: install libdnnl-dev and ocl-icd-opencl-dev "
           "(scripts/install-deps.sh) and rebuild (scripts/build.sh)";
#endif
  if (name == "cuda" && !gpu_plugin_built()) return "the cuda back end needs the CUDA plugin: " + gpu_plugin_not_built();
  return "";
}

}  // namespace dlcbench
