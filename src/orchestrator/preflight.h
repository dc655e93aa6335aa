// The like-for-like check before a run: each environment's worker prints its
// fingerprint (no data, no model), and every environment is compared with
// the baseline before hours are spent measuring.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/comparability.h"
#include "core/results_file.h"
#include "orchestrator/plan.h"
#include "orchestrator/scheduler.h"

namespace dlcbench {

struct PreflightResult {
  // Per environment label: its differences from the baseline.
  std::map<std::string, std::vector<Mismatch>> mismatches;
  // Environments whose fingerprint could not be taken, with the reason.
  std::map<std::string, std::string> failures;
  bool stops = false;  // a mismatch nobody asked for
  std::string message;  // what differs and how to fix it, for the user
};

// Runs `worker --fingerprint-only` for the plan's first training case in
// every available environment; appends each fingerprint to results.jsonl as
// a "preflight" record.
PreflightResult run_preflight(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                              ResultsWriter& results, const ScheduleOptions& options);

}  // namespace dlcbench
