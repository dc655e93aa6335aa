// `dlcbench doctor --clean`: removes what runs that no longer go on left on
// this machine (runtimes/leftovers.h), saying what, and leaves a live run's
// alone (core/live_runs.h). Exit 1 when something could not be removed.
#pragma once

namespace dlcbench::cli {

int clean_run_leftovers();

}  // namespace dlcbench::cli
