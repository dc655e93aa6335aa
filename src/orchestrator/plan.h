// Planning: the cases a request expands into, and the data each launch gets.
// The plan itself, a noun of the run model, is in model/plan.h.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case_spec.h"
#include "model/plan.h"

namespace dlcbench {

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

}  // namespace dlcbench
