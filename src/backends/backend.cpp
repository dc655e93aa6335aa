#include "backends/backend.h"

#include <fmt/format.h>

#include "backends/reference/reference_backend.h"
#include "core/errors.h"
#include "gpu/gpu_loader.h"

#if DLCBENCH_HAVE_ONEDNN
#include "backends/onednn/onednn_backend.h"
#endif
#if DLCBENCH_HAVE_TORCH
#include "backends/torch/torch_backend.h"
#endif

namespace dlcbench {

std::unique_ptr<Backend> make_backend(const std::string& name, int threads) {
#if DLCBENCH_HAVE_TORCH
  if (name == "torch") return make_torch_backend(threads);
#else
  if (name == "torch") throw UsageError(backend_unavailable(name));
#endif
#if DLCBENCH_HAVE_ONEDNN
  if (name == "onednn") return make_onednn_backend(threads);
#else
  if (name == "onednn") throw UsageError(backend_unavailable(name));
#endif
  if (name == "reference") return make_reference_backend(threads);
  if (name == "cuda") return gpu_plugin().make_backend(threads);
  throw UsageError(fmt::format("unknown back end '{}': valid back ends are {}", name,
                               fmt::join(backend_names(), ", ")));
}

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
