// dlcbench's own training engine: a small, readable implementation of the
// four networks on OpenBLAS's sgemm (im2col convolutions) and OpenMP, the
// transparent baseline the framework back ends are compared with.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace dlcbench {

std::unique_ptr<Backend> make_reference_backend(int threads);

}  // namespace dlcbench
