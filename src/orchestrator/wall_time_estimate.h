// How long a planned run will take, said before its first launch and by
// --dry-run: from the wall time each (case, environment) launch took in the
// earlier runs in the results folder (a calibrate run's too), times the
// planned rounds. A cell no earlier run measured is left out and counted, so
// the estimate never claims more than it knows.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "model/plan.h"
#include "orchestrator/run_request.h"

namespace dlcbench {

struct WallTimeEstimate {
  double seconds = 0;          // of the cells measured before, times the planned rounds
  std::size_t cells = 0;       // cases x environments of the plan
  std::size_t cells_known = 0;  // of those, measured in an earlier run
  std::size_t runs_read = 0;    // earlier run folders that measured any
};

// Reads the newest `max_runs` run folders under `results_root` (their
// results.jsonl launch records, wall_seconds of each successful launch);
// the label's "#N" suffix is ignored, so calibrate's host#2 counts as host.
WallTimeEstimate estimate_wall_time(const Plan& plan, const std::filesystem::path& results_root,
                                    std::size_t max_runs = 20);

// Where a run of `request` writes its folder, beside the earlier runs the
// estimate reads: --out, or the parent of --run-folder.
std::filesystem::path earlier_runs_folder(const RunRequest& request);

// "about 21 min (each case and environment as measured in 3 earlier runs
// in results), plus preparing the environments", or "no estimate yet: no
// earlier run in results measured these cases; the live line's ETA starts
// after the first launches".
std::string estimate_words(const WallTimeEstimate& e, const std::filesystem::path& results_root);

}  // namespace dlcbench
