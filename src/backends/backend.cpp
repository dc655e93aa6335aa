#include "backends/backend.h"

#include <fmt/format.h>

#include "backends/reference/reference_backend.h"
#include "core/errors.h"

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
  // The cuda back end lives in the CUDA plugin, which the GPU loader above
  // the back ends opens (gpu/gpu_loader.h); the worker asks it there.
  if (name == "cuda") throw UsageError("the cuda back end is made by the CUDA plugin's loader, not here");
  throw UsageError(fmt::format("unknown back end '{}': valid back ends are {}", name,
                               fmt::join(backend_names(), ", ")));
}

}  // namespace dlcbench
