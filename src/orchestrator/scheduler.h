// Runs the plan: round after round, every case in every environment, the
// environments in a shuffled order each round so that drift of the machine
// spreads evenly over them. Every line a worker prints is appended to
// results.jsonl as it arrives.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/results_file.h"
#include "orchestrator/plan.h"
#include "orchestrator/stopping_rule.h"
#include "runtimes/environment.h"

namespace dlcbench {

struct ScheduledEnvironment {
  std::string label;  // as in results.jsonl, e.g. "docker"
  std::unique_ptr<Environment> environment;
  std::string unavailable;  // why it cannot run, empty when it can
};

struct Progress {
  int round = 0, rounds = 0;  // rounds may grow (replacements, --precision, --until-cv)
  std::string case_id, env;
  int done = 0, total = 0;    // launches finished, launches planned
  double eta_seconds = -1;    // -1 until one launch has finished
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
  // Before each launch, for a live progress line on a terminal.
  std::function<void(const Progress&)> progress;
  // `run --resume`: launches an earlier session measured; they are skipped
  // (a round they fill entirely is not announced again).
  std::set<LaunchKey> already_measured;
  // `run --resume`: the rounds the earlier sessions reached (measured at
  // least that far, more if the stopping rule adds some), and what they
  // measured per case x environment (case_id and env set), so that the rule
  // replaces a disturbed run, or meets --precision, as an uninterrupted run
  // would have.
  int rounds_reached = 0;
  std::vector<CellRuns> earlier_cells;
  // --take-turns: each launch holds the machine's turn (core/machine_turn.h),
  // so launches of other runs that take turns on this machine never overlap
  // with it.
  bool take_turns = false;
  // serve cases: the program whose `loadgen` sends the requests, on the host
  // (dlcbench-worker beside dlcbench).
  std::filesystem::path load_generator;
};

// The worker's launch of a case with `args` (spec.worker_args() and more):
// its data, the run's thread settings, a loader's segment token (the
// instance) and its I/O target, as every worker launch of a run gets them.
WorkerLaunch worker_launch(const Plan& plan, const CaseSpec& spec, std::vector<std::string> args,
                           const ScheduleOptions& options, const std::string& instance);

struct ScheduleResult {
  bool interrupted = false;
  int launches = 0;
  int failed_launches = 0;
  int rounds = 0;  // rounds started (more than plan.runs when rounds were added)
  int disturbed_launches = 0;  // successful launches judged disturbed, set aside
  double elapsed_seconds = 0;  // measuring, in this session
  // The stopping rule's last word (when the plan allows added rounds): why
  // it stopped, and where --precision and --until-cv stood.
  std::optional<RoundDecision> decision;
  // With --until-cv: the largest CV over cases and environments at the end,
  // and whether the limit of rounds stopped the run before every CV was met.
  double final_cv = 0;
  bool cv_target_missed = false;
};

// `run --resume` of a run whose every launch was measured (killed between
// a round's last launch and the next): whether the stopping rule, from what
// the earlier sessions measured in `earlier_seconds`, adds a round.
bool resume_adds_round(const Plan& plan, const ScheduleOptions& options, double earlier_seconds);

ScheduleResult run_schedule(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                            ResultsWriter& results, const ScheduleOptions& options);

}  // namespace dlcbench
