// What `dlcbench run`, `explain` and `calibrate` ask the orchestrator for,
// typed: the command line's options parsed and checked once, at the edge
// (cli/run_options.cpp), and handed over whole. It holds no CLI11 type and
// no text left to parse later; the planning (orchestrator/planning.h) turns
// it into a Plan, the session (orchestrator/run_session.h) measures that.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/command_spec.h"
#include "model/environment_request.h"
#include "model/equivalence_margin.h"

namespace dlcbench {

struct RunRequest {
  enum class Kind {
    run,        // the environments named (or found), compared with the baseline
    explain,    // the baseline, `explained`, and its variants one feature apart
    calibrate,  // the baseline against a copy of itself (an A/A run)
  };
  Kind kind = Kind::run;

  // What is measured.
  std::vector<std::string> workloads;  // --workloads items ("gemm/sgemm:n=2048"); empty: the suite's
  std::string suite = "default";
  std::vector<std::string> io_targets = {"rootfs"};  // --path
  std::vector<std::string> backends;                 // empty: torch, and cuda on the GPU
  std::vector<std::string> devices = {"cpu"};
  std::vector<EnvironmentRequest> environments;      // --envs; empty: host and every runtime found
  std::vector<int> batches;                          // empty: each workload's default
  std::string input = "memory";                      // or "disk"
  std::optional<CommandSpec> command;                // `run -- COMMAND ARGS...`
  std::optional<EnvironmentRequest> explained;       // Kind::explain
  std::vector<std::string> features;                 // explain --features; empty: every one that applies

  // How often and how long.
  int runs = 20;
  std::optional<int> warmup, iters;  // unset: each workload's own
  std::optional<int> threads;        // unset: every CPU this process may use
  // Rounds added after `runs` (orchestrator/stopping_rule.h): shares (0: off)
  // and seconds (0: no limit); max_runs 0: as the targets need.
  double until_cv = 0, precision = 0, max_time_seconds = 0;
  int max_runs = 0;
  double margin = kDefaultEquivalenceMargin;
  int starts = 10;  // timed starts per round of the startup workload
  double case_timeout_seconds = 1800;
  std::optional<std::uint64_t> seed;  // unset: random, recorded
  bool pin_threads = true;
  bool hold_samples = true;

  // Data and images.
  std::string data;          // a folder, a fetched data set's name, or "synthetic"
  bool data_given = false;   // --data given (a command gets no data folder otherwise)
  std::string data_mount = "/data";
  std::string image;         // --image for docker and podman
  std::string baseline = "host";

  // Control.
  bool allow_mismatch = false;
  bool keep_images = false;
  bool keep_going = false;  // an environment named that cannot be prepared is skipped, not fatal
  bool take_turns = false;
  bool dry_run = false;     // check and plan, launch nothing
  bool on_slurm = false;    // run --slurm: planned here, measured (and checked) by every node's own run

  // Where the results go.
  std::filesystem::path out = "results";
  std::string run_id;  // empty: made up from the time
  // A node's part of a cluster run (set by `slurm-node`): its exact folder,
  // its cluster run and node, and the cgroup its containers go under.
  std::filesystem::path run_folder;
  std::string cluster_run, cluster_node, cgroup_parent;

  std::vector<std::string> command_line;  // as typed, for the manifest
};

// `dlcbench run --resume DIR`: the plan is the one DIR's manifest recorded;
// only these may change.
struct ResumeRequest {
  std::filesystem::path dir;
  bool keep_images = false;
  bool keep_going = false;
  bool take_turns = false;
  std::string cgroup_parent;
  std::vector<std::string> command_line;
};

}  // namespace dlcbench
