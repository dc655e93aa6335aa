// Runs the plan: round after round, every case in every environment, the
// environments in a shuffled order each round so that drift of the machine
// spreads evenly over them. Every line a worker prints is appended to
// results.jsonl as it arrives.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/results_file.h"
#include "orchestrator/plan.h"
#include "runtimes/environment.h"

namespace dlcbench {

struct ScheduledEnvironment {
  std::string label;  // as in results.jsonl, e.g. "docker"
  std::unique_ptr<Environment> environment;
  std::string unavailable;  // why it cannot run, empty when it can
};

struct ScheduleOptions {
  std::string run_id;  // names the containers, so leftovers can be traced
  // Thread and BLAS settings given to every worker, in every environment.
  std::vector<std::pair<std::string, std::string>> worker_env;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string&)> log;  // progress, one line at a time
  // An environment whose launches fail this many times in a row is dropped
  // for the rest of the run (a daemon that died), with the reason recorded.
  int max_consecutive_failures = 3;
};

struct ScheduleResult {
  bool interrupted = false;
  int launches = 0;
  int failed_launches = 0;
};

ScheduleResult run_schedule(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                            ResultsWriter& results, const ScheduleOptions& options);

}  // namespace dlcbench
