// The all-reduce across the nodes of a cluster run (`run --slurm
// --allreduce`): what a data-parallel job pays for its gradients through
// each environment. After the nodes' own runs, one allocation of the same
// nodes runs dlcbench-allreduce (src/mpi/) as one MPI job of one rank per
// node, launched by srun with PMIx, once per environment and round. Each
// rank is started in its environment as the worker is (the host, or a
// container from the same closure, with the MPI and PMIx components), so the
// ranks of a container run talk through the container, as a containerised
// training job's would.
//
// The driver runs under salloc on the machine the run was started on, so
// the results go straight into the run folder (allreduce.jsonl), whether the
// nodes share it or not.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/cluster_manifest.h"
#include "cluster/slurm.h"
#include "runtimes/environment.h"

namespace dlcbench {

// "8K,1M,16M" (bytes; K, M and G are powers of 1024): a whole number of
// floats each. Throws UsageError.
std::vector<long> parse_allreduce_sizes(const std::string& text);

// The environment each rank of `request` starts in: the host as it is; a
// container on the host's network (network=host added where not given: the
// ranks of one job reach each other by the nodes' addresses). Throws
// UsageError for a network= other than host. Environments that cannot run
// a rank (runsc, chroot) are left out, with the reason in `left_out`.
std::vector<std::string> allreduce_environments(const std::vector<EnvironmentRequest>& requests,
                                                std::vector<std::string>& left_out);

// dlcbench-allreduce's arguments (after the program): the sizes, timed
// calls and warm-up calls `allreduce` asks for.
std::vector<std::string> allreduce_program_arguments(const ClusterAllreduce& allreduce);

// The variables a rank passes into its environment: Slurm's and PMIx's (how
// the rank finds its step and the PMIx server), and the transport: TCP for
// every environment alike (ob1 with the self and tcp BTLs), and PMIx's data
// by messages (gds hash) rather than shared-memory files a container would
// not see. `from`: the rank's own environment, as "NAME=VALUE".
std::vector<std::pair<std::string, std::string>> rank_variables(const std::vector<std::string>& from);

// The Open MPI and PMIx components (plugins loaded with dlopen) the images
// hold beside dlcbench-allreduce's libraries.
std::vector<ImageExtra> mpi_image_extras();

// dlcbench-allreduce, built beside dlcbench.
std::filesystem::path allreduce_program_beside(const std::filesystem::path& self_exe);

// What the driver needs (its options on `slurm-allreduce`).
struct AllreduceDriver {
  std::filesystem::path run_folder;
  std::string run_id;
  std::vector<std::string> environments;  // as allreduce_environments gave them
  int rounds = 1;
  std::uint64_t seed = 1;
  std::vector<std::string> program_arguments;
  double step_timeout_seconds = 900;
};

// The srun of one rank per node of the allocation, each running
// `self slurm-allreduce --rank ...` for `environment`.
std::vector<std::string> allreduce_step_argv(const std::filesystem::path& self_exe, const std::string& environment,
                                             const std::string& instance, const std::vector<std::string>& program_arguments);

// Runs every round (environments in a shuffled order per round, from the
// seed), appending one line per environment, round and size to
// allreduce.jsonl; a failed step gives one line with its error. Returns 0
// when every step gave figures.
int run_allreduce_driver(const AllreduceDriver& driver, const std::filesystem::path& self_exe);

// The (environment, round) pairs `results` (an allreduce.jsonl) already has
// correct figures for: a resumed run measures only the others.
std::set<std::pair<std::string, int>> allreduce_steps_measured(const std::filesystem::path& results);

// One rank: prepares `environment` on this node, starts dlcbench-allreduce
// in it with the rank's variables, passes its output on, and cleans up.
int run_allreduce_rank(const std::string& environment, const std::string& instance,
                       const std::vector<std::string>& program_arguments, const std::filesystem::path& self_exe);

}  // namespace dlcbench
