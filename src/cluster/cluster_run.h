// `dlcbench run --slurm`: the same plan on every node of a Slurm allocation,
// one job step per node, each node's run a complete run folder under
// nodes/<node>/ of one run folder (cluster.json says how they got there).
// The orchestrator only submits, waits, brings staged folders back and
// reports; every figure is measured by a node's own `dlcbench run`.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster_manifest.h"
#include "cluster/slurm.h"

namespace dlcbench {

// The `run` arguments a node's run starts with: the user's, less those that
// belong to the cluster run (--slurm and its knobs, --out, --run-id,
// --seed, --dry-run), which the node step sets itself. Both "--opt value"
// and "--opt=value" forms; nothing after "--" (a user's command) is touched.
std::vector<std::string> node_run_arguments(const std::vector<std::string>& run_arguments);

// A node's seed: the run's, mixed with the node's name (FNV-1a), so each
// node has its own environment order, reproducible from cluster.json.
std::uint64_t node_seed(std::uint64_t run_seed, const std::string& node);

// The nodes the request asks for, and how results come back; throws
// UsageError before anything is submitted: Slurm not answering, a
// partition or account Slurm refuses (its own message, with the command),
// or a run folder the nodes would not share with no --stage.
struct ClusterCheck {
  ResultsTransfer transfer = ResultsTransfer::shared;
  int nodes = 0;
  std::string why_shared;  // shared: why the run folder is taken to be shared
};
ClusterCheck check_cluster_request(const SlurmRequest& request, const std::filesystem::path& out);

struct ClusterRunStart {
  SlurmRequest request;
  ClusterCheck check;
  std::vector<std::string> node_arguments;
  std::uint64_t seed = 0;
  std::vector<std::string> command_line;
  std::filesystem::path self_exe;
  const std::atomic<bool>* cancel = nullptr;
  // --allreduce: the all-reduce across the nodes after their runs.
  std::optional<ClusterAllreduce> allreduce{};
};

// Submits the job, waits for it, brings staged folders back, writes
// cluster.json and prints the merged report. Returns the exit code.
int run_cluster(const ClusterRunStart& start, const std::filesystem::path& dir, const std::string& run_id);

// `run --resume DIR` of a cluster run: submits again on the nodes whose
// runs did not finish (each continues its own folder), as the first job did.
int resume_cluster(const std::filesystem::path& dir, const std::filesystem::path& self_exe,
                   const std::atomic<bool>* cancel);

// The nodes whose run folder under `dir` is missing or did not complete.
std::vector<std::string> unfinished_nodes(const std::filesystem::path& dir, const ClusterManifest& m);

// Whether every node of `nodes` runs on this very machine (their addresses
// or host names are this machine's), so any local folder is shared.
bool nodes_share_this_machine(const std::vector<SlurmNode>& nodes);

// Whether the file system holding `folder` is a network or cluster one
// (NFS, Lustre, GPFS, BeeGFS, CephFS, CIFS, ...); its name in `type`.
bool on_shared_file_system(const std::filesystem::path& folder, std::string& type);

}  // namespace dlcbench
