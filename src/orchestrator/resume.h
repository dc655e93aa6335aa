// `dlcbench run --resume DIR`: what an interrupted, killed or partly failed
// run still has to measure, and whether it may be continued at all.
//
// A launch counts as measured only when results.jsonl holds a successful
// "launch" record for its (round, case, environment). Everything else is
// measured again, in the recorded round orders, into the same files:
// launches never started, launches that failed, and launches cut off by a
// kill (samples but no launch record). Before the new session's lines the
// resume appends one "resume" record; the analysis drops every launch still
// unfinished at that record, so samples of a cut-off launch never count
// twice (see analysis.cpp).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/manifest.h"
#include "model/launch_progress.h"
#include "orchestrator/plan.h"
#include "orchestrator/stopping_rule.h"

namespace dlcbench {

// What the earlier sessions measured, per case x environment, as the
// stopping rule reads it (orchestrator/stopping_rule.h): each undisturbed
// run's value and round, and the disturbed ones set aside, from the same
// analysis the report makes of the files.
std::vector<CellRuns> earlier_cell_runs(const Manifest& manifest, const std::vector<nlohmann::json>& records);

// Seconds the earlier sessions measured for, from their first launch's start
// to their last one's end: what --max-time has left for a resumed session.
double earlier_measuring_seconds(const std::vector<nlohmann::json>& records);

// Why the manifest's run cannot be continued by this binary, or "" when it
// can: the sha256 of the orchestrator that started it differs from
// `this_binary_sha256` (a resumed run must measure the same bits).
std::string binary_difference(const Manifest& manifest, const std::string& this_binary_sha256);

// An exclusive lock on the run folder, held while a run (first session or
// resumed) writes to it, so a second `--resume` cannot append to a run that
// is still going. The kernel drops it when the process dies, even by SIGKILL.
class RunFolderLock {
 public:
  explicit RunFolderLock(const std::filesystem::path& dir);  // throws UsageError if held
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace dlcbench
