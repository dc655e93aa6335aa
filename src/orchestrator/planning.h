// From a typed request to the plan of a run, checked as far as it can be
// before anything is launched: the workloads (a suite's tools that are not
// installed left out), the back ends this build and device can run, the
// environments (named, found on the machine, an explain's variants or a
// calibration's copy), the rounds, the data, the BLAS kernel and every
// environment's program, image and root file system. What the run would
// refuse, the dry run refuses: a UsageError or DataError names the option
// and the fix.
#pragma once

#include "model/plan.h"
#include "orchestrator/run_request.h"

namespace dlcbench {

struct PlannedRun {
  Plan plan;
  int threads = 1;  // --threads, or every CPU this process may use
};

PlannedRun plan_run(const RunRequest& request);

// Every case is a user's command (none of dlcbench's workloads); true for
// a plan without cases.
bool only_commands(const Plan& plan);
// Every case runs in dlcbench-probe (commands and the system-call table:
// CaseSpec::runs_in_probe); true for a plan without cases.
bool only_in_probe(const Plan& plan);

// Fails early, before anything is launched, if a data set is missing or bad.
void check_data(const Plan& plan);

}  // namespace dlcbench
