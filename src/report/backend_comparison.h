// The framework comparison: the same network, device and batch trained by
// several back ends in one run, side by side, so one run answers both "which
// back end is fastest here" and "does a container cost back end X more than
// back end Y".
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

struct BackendRow {
  const CaseAnalysis* analysis = nullptr;
  double baseline_seconds = 0;  // mean of runs in the baseline environment; 0 when none
  double vs_fastest = 0;        // baseline_seconds over the fastest back end's; 0 when unknown
};

struct BackendGroup {
  std::string network;  // the case id without the back end, e.g. "fcn5/cpu/b64"
  std::vector<BackendRow> rows;  // fastest first on the baseline
};

// Groups of training cases that differ only in the back end; only groups
// with two or more back ends.
std::vector<BackendGroup> backend_groups(const Analysis& analysis);

}  // namespace dlcbench
