// The table printed at the end of `dlcbench run`: per case, one row per
// environment with seconds per batch (a micro-benchmark: its figure, e.g.
// GFLOP/s), and the overhead against the baseline; then a summary per
// section (training, micro-benchmarks, container start-up).
#pragma once

#include <string>

#include "analysis/analysis.h"
#include "report/report_model.h"

namespace dlcbench {

std::string render_console(const Analysis& analysis);

// One table in aligned columns, as the console report lays them out (for
// the cluster report).
std::string render_console_table(const Table& table);

}  // namespace dlcbench
