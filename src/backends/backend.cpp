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

}  // namespace dlcbench
