#include "backends/backend.h"

#include <fmt/format.h>

#include "backends/torch/torch_backend.h"
#include "core/errors.h"

namespace dlcbench {

void TrainingSession::load_examples(const float*, const std::int64_t*) {
  throw UsageError("this workload cannot take batches read from disk: use --input memory");
}

void TrainingSession::load_tokens(std::size_t, const std::int64_t*, const std::int64_t*) {
  throw UsageError("this workload does not train on text read from disk: use --input memory");
}

std::unique_ptr<Backend> make_backend(const std::string& name, int threads) {
  if (name == "torch") return make_torch_backend(threads);
  throw UsageError(fmt::format("unknown back end '{}': valid back ends are {}", name,
                               fmt::join(backend_names(), ", ")));
}

}  // namespace dlcbench
