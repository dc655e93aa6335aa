// The stored runs as series for `dlcbench history` (analysis/history.h):
// one per machine, case and environment, oldest first, each entry its own
// machine's comparison against its own baseline.
#pragma once

#include <string>
#include <vector>

#include "analysis/history.h"
#include "store/stored_run.h"

namespace dlcbench {

struct SeriesFilter {
  std::string case_id;  // "" for every case
  std::string env;      // "" for every environment
};

// Comparisons that were not made like for like (stopped by a mismatch
// nobody asked for) are left out: their overhead is not the environment's.
std::vector<HistorySeries> history_series(const std::vector<StoredRun>& runs, const SeriesFilter& filter = {});

}  // namespace dlcbench
