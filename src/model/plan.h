// What a `dlcbench run` will measure: cases x environments x rounds, and
// its conversions to and from the record the manifest keeps
// (model/recorded_plan.h).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ablation_plan.h"
#include "core/case_spec.h"
#include "model/environment_request.h"
#include "model/equivalence_margin.h"
#include "model/recorded_plan.h"

namespace dlcbench {

struct Plan {
  std::vector<CaseSpec> cases;
  std::vector<EnvironmentRequest> environments;
  int runs = 20;                 // rounds; each runs every case once in every environment
  // Rounds added after `runs` (orchestrator/stopping_rule.h), up to
  // max_runs rounds in all (at or below runs: none): a replacement for each
  // disturbed run; while a comparison's robust interval is wider than
  // +-precision (a share; 0: off); while a case's coefficient of variation
  // over runs exceeds until_cv (Phoronix Test Suite style; 0: off); none
  // that would end after max_time_seconds (0: no limit).
  double until_cv = 0;
  double precision = 0;
  double max_time_seconds = 0;
  int max_runs = 0;
  // The equivalence verdicts' margin: "no overhead above 2%".
  double margin = kDefaultEquivalenceMargin;
  // `dlcbench calibrate`: the baseline against a copy of itself.
  bool calibration = false;
  // Workers print their measured samples when the phase ends (--hold-samples,
  // the default of `run`), so the orchestrator is idle while batches are
  // timed. A manifest without the field was written streaming them.
  bool hold_samples = false;
  // After the measured rounds, one counting launch per case and environment
  // counts the worker's system calls, page faults and context switches per
  // batch from outside (core/syscall_counter.h), never in a timed launch:
  // set when the run measures the system-call cost table (syscall/table),
  // which the counts are predicted from.
  bool count_calls = false;
  std::uint64_t seed = 1;        // for the environment order in each round
  std::string data = "synthetic";  // "synthetic" or a data folder on the host
  double case_timeout_seconds = 1800;
  std::string baseline = "host";
  // Compare even when fingerprints differ in ways nobody asked for; the
  // report marks each such comparison.
  bool allow_mismatch = false;
  // `dlcbench explain`: the environment explained and its variants (each
  // also among `environments`).
  std::optional<AblationPlan> ablation;
};

// Splits "a,b,c" and drops empty items.
std::vector<std::string> split_list(const std::string& text);
// The value of --workloads: "fcn5,io-seq:size=1g,block=4m,stream/triad". A
// "key=value" item continues the workload before it, so options may be
// separated by commas as in --envs.
std::vector<std::string> split_workload_list(const std::string& text);

// The environment order of each round: every environment once, shuffled by
// a generator seeded with the plan's seed, so it is random but reproducible.
std::vector<std::vector<std::size_t>> round_orders(std::size_t environments, int runs,
                                                   std::uint64_t seed);

// The plan as the manifest records it, with the fields each environment's
// options are meant to change; to_json writes that record.
RecordedPlan record_of(const Plan& p);
void to_json(nlohmann::json& j, const Plan& p);
// The plan a manifest recorded, to measure more of it (`run --resume`).
// Throws std::runtime_error naming what is missing or no longer valid, e.g.
// a case whose id this version computes differently (its records would not
// match).
Plan plan_to_resume(const RecordedPlan& recorded);

// One launch of the plan: a case in an environment in a round. Results
// records carry the same three keys ("round", "case", "env").
struct LaunchKey {
  int round = 0;
  std::string case_id;
  std::string env;
  auto operator<=>(const LaunchKey&) const = default;
};

}  // namespace dlcbench
