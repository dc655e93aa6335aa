// The oneDNN back end: the networks built from oneDNN primitives, with the
// loss, the optimiser and the embedding written here.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace dlcbench {

std::unique_ptr<Backend> make_onednn_backend(int threads);

}  // namespace dlcbench
