// What a `dlcbench run` will measure: cases x environments x rounds.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/run_records.h"
#include "core/case_spec.h"
#include "core/ablation_plan.h"
#include "runtimes/environment.h"

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

struct PlanRequest {
  // Items of --workloads: "fcn5", "startup", or a micro-benchmark with its
  // variant and options, "gemm/sgemm:n=2048" (see split_workload_list).
  std::vector<std::string> workloads;
  std::vector<std::string> backends;
  // Each back end trains on each of these it supports (cpu, gpu); one that
  // supports none of them is an error.
  std::vector<std::string> devices = {"cpu"};
  std::vector<int> batches;  // empty: each workload's default
  // Unset: each workload's default (training 5 and 20; micro-benchmarks
  // their own, see micro_workloads.h).
  std::optional<int> warmup;
  std::optional<int> iters;
  int threads = 1;
  std::uint64_t seed = 42;
  std::string input = "memory";  // or "disk"
  int starts = 10;               // timed starts per round of the startup workload
  // Where the I/O micro-benchmarks write: "rootfs", "tmpfs" or host folders.
  std::vector<std::string> io_targets = {"rootfs"};
  // `run -- COMMAND`: a user's command, one case "cmd:<name>". With a
  // metric its first `warmup` iterations of each launch are warm-up
  // (default 1); without, each launch is one figure, its wall time.
  std::optional<CommandSpec> command;
};

inline constexpr int kTrainingWarmup = 5;
inline constexpr int kTrainingIters = 20;

// Expands the request into cases, validating every name (UsageError lists
// the valid ones).
std::vector<CaseSpec> expand_cases(const PlanRequest& request);

// The data folder a launch of `spec` gets: the plan's for a case that reads
// a data set, none ("synthetic") for a micro-benchmark, which reads none (a
// default data folder never fetched would otherwise fail Charliecloud's bind).
std::string launch_data(const Plan& plan, const CaseSpec& spec);

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

void to_json(nlohmann::json& j, const Plan& p);

// The fingerprint fields each environment's options are meant to change
// (runtimes/container_options.h: fields_changed_by), by label.
RequestedFields requested_fields_of(const std::vector<std::string>& labels);
// The plan as the analysis reads it from a run's manifest; a manifest
// written before the plan recorded its requested fields gets them from its
// labels here.
ManifestPlan read_plan_of_run(const Manifest& manifest);
// The plan as a manifest recorded it (`run --resume`). Throws
// std::runtime_error naming what is missing or no longer valid, e.g. a case
// whose id this version computes differently (its records would not match).
Plan plan_from_json(const nlohmann::json& j);

// One launch of the plan: a case in an environment in a round. Results
// records carry the same three keys ("round", "case", "env").
struct LaunchKey {
  int round = 0;
  std::string case_id;
  std::string env;
  auto operator<=>(const LaunchKey&) const = default;
};

}  // namespace dlcbench
