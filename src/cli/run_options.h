// The options of `dlcbench run`, `explain` and `calibrate` as CLI11 binds
// them, and their one conversion into the typed request the orchestrator
// takes (orchestrator/run_request.h): every value parsed and checked here,
// at the edge, and nowhere later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/cluster_manifest.h"
#include "data/dataset.h"
#include "orchestrator/run_request.h"

namespace dlcbench::cli {

struct RunOptions {
  std::string workloads;  // empty: the suite's
  std::string suite = "default";
  std::string paths = "rootfs";
  std::string backends;  // empty: torch, and cuda with --device gpu
  std::string device = "cpu";
  std::string envs;  // empty: host and every runtime found
  std::string batches;
  std::string input = "memory";
  int runs = 20;
  std::optional<int> warmup;  // unset: each workload's own
  std::optional<int> iters;
  std::optional<int> threads;  // unset: every CPU this process may use
  std::string data = default_data_root().string();
  std::string out = "results";
  std::string image;
  std::string baseline = "host";
  std::optional<std::uint64_t> seed;  // unset: random, recorded
  double case_timeout = 1800;
  int starts = 10;
  bool allow_mismatch = false;
  bool keep_images = false;
  bool keep_going = false;  // an environment named in --envs that cannot be prepared is skipped, not fatal
  std::string until_cv;   // "2%" or "0.02"; empty: off
  std::string precision;  // "2%": add rounds until every interval is within +-2%; empty: off
  std::string margin;     // of the equivalence verdict; empty: 2%
  std::string max_time;   // "45m": no added round ends after it; empty: no limit
  int max_runs = 0;       // 0: by the targets given (set_repetition)
  std::string resume;    // a run folder to continue; empty: a new run
  bool dry_run = false;  // check and print the plan, launch nothing
  bool verbose = false;  // the full report on the console, not the answer alone
  // The results store the run is added to at its end (store/store_location.h):
  // a SQLite path or a postgresql:// URL; empty: DLCBENCH_STORE or the default.
  std::string store;
  bool no_store = false;
  // `dlcbench explain ENV`: the environment explained and the features to
  // change one at a time (empty: every one that applies).
  std::string explain;
  std::string features;
  // `dlcbench calibrate`: --baseline against a copy of itself.
  bool calibrate = false;
  // Both on by default: they change where and when things run, not what is
  // measured, and lowered the A/A noise floor of the 2-vCPU development
  // machine from +-10% to +-2-6% (bench/README.md, "Noise at the source").
  bool pin_threads = true;   // bind the worker's OpenMP threads one per CPU
  bool hold_samples = true;  // workers print their measured samples when the phase ends
  // `run [options] -- COMMAND ARGS...`: a user's command (core/command_spec.h).
  std::vector<std::string> command;
  std::string name;         // the case is cmd:<name>; default: the program's file name
  std::string metric;       // a regex with one group, or json:FIELD; empty: wall time per launch
  std::string metric_unit;  // default: s/iteration
  bool higher_is_better = false;
  std::string pass_env;     // variables passed to the command, comma-separated
  std::string workdir;      // HOST[:CONTAINER], mounted read-write, the command's working folder
  std::string data_mount = "/data";
  bool data_given = false;  // --data on the command line (a command gets no data folder otherwise)
  // `run --slurm`: the plan on every node of an allocation (cluster/cluster_run.h).
  SlurmRequest slurm;
  std::vector<std::string> node_cpu_quota;  // NODE=CPUS
  bool allreduce = false;                   // --allreduce (cluster/allreduce_run.h)
  std::string allreduce_sizes;
  int allreduce_iterations = ClusterAllreduce{}.iterations;
  std::string run_id;        // the run's folder name under --out and its containers' label; empty: made up
  bool take_turns = false;   // hold the machine's turn for each launch (core/machine_turn.h)
  // A node's part of a cluster run (set by `slurm-node`, not by users): its
  // exact folder, its cluster run and node, and the cgroup its containers go
  // under (a node under a CPU quota).
  std::string run_folder, cluster_run, cluster_node, cgroup_parent;
};

// Every option of `run`, bound to `o`: the groups below, all of them.
void add_run_options(CLI::App* cmd, RunOptions& o);

// Each adds a group of options to a command, bound to `o`.
void add_what_options(CLI::App* cmd, RunOptions& o);        // workloads, back ends, devices, environments, batches
void add_repetition_options(CLI::App* cmd, RunOptions& o);  // rounds, batches per launch, threads, data, --out
void add_control_options(CLI::App* cmd, RunOptions& o);     // order, limits, adaptive rounds, dry run, resume
void add_command_options(CLI::App* cmd, RunOptions& o);     // `run [options] -- COMMAND ARGS...`
void add_cluster_options(CLI::App* cmd, RunOptions& o);     // `run --slurm` and a node's part of it

// The options as one typed request. Throws UsageError naming the option
// and the fix.
RunRequest run_request(const RunOptions& o, const std::vector<std::string>& command_line);

// The options of `dlcbench run` given as words (what `dlcbench k8s` passes
// to each pod's run), as the typed request. Throws CLI::ParseError or
// UsageError.
RunRequest run_request_of_words(const std::vector<std::string>& words);

// `--resume DIR`: refuses every option given on `cmd` that would change the
// recorded plan (UsageError), and returns what may change.
ResumeRequest resume_request(const RunOptions& o, const CLI::App* cmd, const std::vector<std::string>& command_line);

}  // namespace dlcbench::cli
