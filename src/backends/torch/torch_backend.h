// The LibTorch back end.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace dlcbench {

std::unique_ptr<Backend> make_torch_backend(int threads);

}  // namespace dlcbench
