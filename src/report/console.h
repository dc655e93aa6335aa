// The table printed at the end of `dlcbench run`: per case, one row per
// environment with seconds per batch (a micro-benchmark: its figure, e.g.
// GFLOP/s), and the overhead against the baseline; then a summary per
// section (training, micro-benchmarks, container start-up).
#pragma once

#include <string>

#include "analysis/analysis.h"

namespace dlcbench {

std::string render_console(const Analysis& analysis);

}  // namespace dlcbench
