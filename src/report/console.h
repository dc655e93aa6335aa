// The table printed at the end of `dlcbench run`: per case, one row per
// environment with seconds per batch (a micro-benchmark: its figure, e.g.
// GFLOP/s), and the overhead against the baseline; then a summary per
// section (training, micro-benchmarks, container start-up).
#pragma once

#include <cstddef>
#include <string>

#include "analysis/analysis.h"
#include "report/report_model.h"

namespace dlcbench {

// Everything (`report --details`, `run --verbose`): per case its statistics,
// each comparison in full, counters, ablation; the summaries; notes.
std::string render_console(const Analysis& analysis);

// The answer first (report/answer.h): per case a short table and the why
// lines, then one line each for what every container shares, runs set
// aside and where the details are (`details_command`, e.g. "dlcbench
// report results/X --details"). No line is wider than kAnswerWidth, but for
// the messages a user searches for (a failed launch's cause, a note on the
// run's files), printed whole.
inline constexpr std::size_t kAnswerWidth = 100;
std::string render_answer(const Analysis& analysis, const std::string& details_command);

// One table in aligned columns, as the console report lays them out (for
// the cluster report).
std::string render_console_table(const Table& table);

}  // namespace dlcbench
