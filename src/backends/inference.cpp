#include "backends/inference.h"

#include <fmt/format.h>

#include "core/errors.h"

#if DLCBENCH_HAVE_TORCH
#include "backends/torch/torch_inference.h"
#endif

namespace dlcbench {

InferenceModel make_inference_model(const std::string& backend, const models::ModelSpec& spec) {
#if DLCBENCH_HAVE_TORCH
  if (backend == "torch") {
    torch_backend::TorchInference made = torch_backend::make_torch_inference(spec);
    return {std::move(made.infer), made.input_floats, made.library};
  }
#endif
  throw UsageError(fmt::format("serve runs its network with LibTorch; this worker {}: build dlcbench with LibTorch "
                               "(scripts/install-deps.sh installs libtorch-dev)",
                               backend == "torch" ? "was built without it" : "cannot serve with " + backend));
}

}  // namespace dlcbench
