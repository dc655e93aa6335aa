// The Slurm client side: what dlcbench asks of sbatch, srun and scontrol.
// Every call is an argument vector (never a shell line); the batch script is
// a constant that passes its arguments through as "$@".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster_manifest.h"

namespace dlcbench {

// One --node-cpu-quota entry, NODE=CPUS, as (node, CPUs). Throws UsageError
// for anything else, or CPUs not above 0.
std::pair<std::string, double> parse_node_cpu_quota(const std::string& entry);

// Throws UsageError when sbatch, srun or scontrol is missing, or when no
// controller answers, saying what to install or start.
void check_slurm_answers();

// The script sbatch runs on the first node of the allocation: one job step
// per node (so that one node's step can be cancelled alone), each running
// the arguments after the script, then waiting for all.
const std::string& batch_script();

// The sbatch argument vector: --parsable --wait, the allocation (nodes or
// node list, one task per node), the user's knobs and extra arguments, the
// job's output file, then the script and the step's arguments.
std::vector<std::string> sbatch_argv(const SlurmRequest& request, const std::string& job_name,
                                     const std::string& output, const std::string& script,
                                     const std::vector<std::string>& step_argv,
                                     const std::vector<std::string>& only_nodes = {});

// salloc of one task on each of `nodes`, running `command` on this machine
// inside the allocation (which ends with it).
std::vector<std::string> salloc_argv(const SlurmRequest& request, const std::string& job_name,
                                     const std::vector<std::string>& nodes, const std::vector<std::string>& command);

// srun of one task on one named node of a new allocation, for staging.
std::vector<std::string> srun_on_node_argv(const SlurmRequest& request, const std::string& node,
                                           const std::vector<std::string>& command);

// `scontrol show hostnames LIST`: "n[1-3],m" -> n1 n2 n3 m. Throws
// std::runtime_error with scontrol's message.
std::vector<std::string> expand_nodelist(const std::string& list);

// Key=Value fields of one `scontrol show ... -o` line (values may hold spaces
// only where Slurm quotes nothing: the line is split at " Key=" boundaries).
std::map<std::string, std::string> parse_scontrol_line(const std::string& line);

struct JobState {
  std::string state;      // COMPLETED, CANCELLED, TIMEOUT, FAILED, RUNNING, ...
  std::string reason;
  std::string exit_code;  // "0:0"
  std::string nodelist;
};
// `scontrol show job -o ID`; nullopt when Slurm no longer knows the job.
std::optional<JobState> job_state(const std::string& job_id);

struct SlurmNode {
  std::string name, address, hostname;
};
// The nodes of a partition (the default one when empty) in a state that
// takes jobs, from `scontrol show node -o` and sinfo.
std::vector<SlurmNode> usable_nodes(const std::string& partition);

// The node this process runs on, inside a job step: SLURMD_NODENAME (the
// name given to `slurmd -N` where several share a machine), else the host's
// short name.
std::string this_slurm_node();

}  // namespace dlcbench
