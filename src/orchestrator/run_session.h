// A session of a run: the first, started from a plan, or one started by
// `run --resume` from a run folder. It owns the run's folder, manifest and
// results file; prepares the environments, checks that they run like for
// like, schedules the rounds (the stopping rule adding rounds), records how
// it went, and leaves the host as it found it. The report is the command's:
// it is computed from the files alone.
#pragma once

#include <atomic>
#include <filesystem>

#include "orchestrator/planning.h"
#include "orchestrator/run_request.h"

namespace dlcbench {

struct SessionEnd {
  enum class Stop {
    measured,           // the rounds ran (some launches may have failed, or a signal cut them short)
    not_prepared,       // an environment named could not be prepared: nothing (more) measured
    not_comparable,     // the environments would not run like for like: nothing measured
    nothing_to_resume,  // --resume: every launch was measured already
  };
  Stop stop = Stop::measured;
  std::filesystem::path dir;         // the run folder
  bool interrupted = false;          // a signal stopped it; --resume measures the rest
  bool failed_launches = false;
  bool environment_missing = false;  // one the run cannot do without was unavailable
};

// Measures `planned` in a new run folder under request.out (or
// request.run_folder). `cancel` is set by a signal: the launch in progress
// is stopped and the manifest says "interrupted".
SessionEnd run_new_session(const RunRequest& request, const PlannedRun& planned, std::atomic<bool>& cancel);

// Measures the launches of the run in request.dir that have no successful
// launch record, with its recorded plan, into the same files. Throws
// UsageError when the folder is no run this binary may continue.
SessionEnd resume_run(const ResumeRequest& request, std::atomic<bool>& cancel);

}  // namespace dlcbench
