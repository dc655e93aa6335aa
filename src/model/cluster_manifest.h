// cluster.json: the manifest of a run spread over the nodes of a cluster.
// Each node's own run (plan, fingerprints, samples) is a complete run folder
// under nodes/<node>/; this file says how they were started and brought
// back, so that a report can name what is missing and `run --resume`
// continues the nodes that did not finish.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>


namespace dlcbench {

inline constexpr const char* kClusterManifestFile = "cluster.json";
inline constexpr int kClusterSchemaVersion = 1;
// The all-reduce's figures, one JSON line per size, round and environment.
inline constexpr const char* kAllreduceResultsFile = "allreduce.jsonl";

// `dlcbench run --slurm` and its knobs.
struct SlurmRequest {
  bool enabled = false;
  int nodes = 0;                        // 0: every node of the partition that is up
  std::string nodelist;                 // sbatch --nodelist (e.g. "n[1-4]")
  std::string partition, account;
  std::string time_limit;               // sbatch --time, as Slurm reads it ("30:00")
  std::vector<std::string> sbatch_args; // passed through, one argument each
  // A folder private to each node (node-local scratch) where its results are
  // written, then staged back into the run folder after the job; empty: the
  // run folder itself, which must then be shared by the nodes.
  std::string stage;
  bool shared_folder = false;           // the user says the run folder is shared
  // A CPU quota (in CPUs) for everything a node runs, by node name: a node
  // made slow on purpose, to see it as node spread.
  std::map<std::string, double> cpu_quota;
};


// How the nodes' results reach the run folder.
enum class ResultsTransfer {
  shared,  // each node writes into nodes/<node>/ of the run folder itself (a shared file system)
  staged,  // each node writes into its private stage folder; copied back over srun after the job
};
const char* transfer_name(ResultsTransfer t);

// One sbatch submission (the first, and one per `run --resume`).
struct ClusterJob {
  std::string id;
  std::string submitted_at, ended_at;  // ISO 8601, UTC
  std::vector<std::string> nodes;      // the nodes it ran on (or was asked for)
  std::string state;                   // Slurm's last word: COMPLETED, CANCELLED, TIMEOUT, FAILED, ...
  std::string reason, exit_code;
  std::string submit_error;            // sbatch refused it: Slurm's message
  // Staged runs: per node, "ok" or why its folder could not be brought back.
  std::map<std::string, std::string> staged;
};

// `run --slurm --allreduce`: the all-reduce across the nodes, after their
// runs (cluster/allreduce_run.h); its figures are in allreduce.jsonl, each
// line with the Slurm job it was measured in.
struct ClusterAllreduce {
  std::vector<std::string> environments;  // as each rank starts them (network=host added)
  std::vector<std::string> left_out;      // environments it cannot run in, with why
  std::vector<long> sizes_bytes = {8L << 10, 1L << 20, 16L << 20};
  int iterations = 50;  // timed calls per size and round
  int warmup = 5;       // untimed calls before them
  int rounds = 0;
  std::string status = "not run";         // not run, completed, incomplete
  std::string error{};                    // why it did not complete
};

struct ClusterManifest {
  int schema_version = kClusterSchemaVersion;
  std::string run_id;
  std::vector<std::string> command_line;
  std::string dlcbench_version;
  std::string scheduler = "slurm";
  ResultsTransfer transfer = ResultsTransfer::shared;
  std::string stage_folder;                 // staged: the nodes' private folder for this run
  std::uint64_t seed = 0;                   // each node's seed is derived from it and its name
  std::vector<std::string> node_arguments;  // the `run` options every node's run starts with
  SlurmRequest request;                     // the allocation asked for
  std::vector<ClusterJob> jobs;
  std::string started_at, ended_at;
  std::string status = "running";           // running, completed, incomplete
  std::optional<ClusterAllreduce> allreduce{};
};

void to_json(nlohmann::json& j, const ClusterManifest& m);
void from_json(const nlohmann::json& j, ClusterManifest& m);

ClusterManifest read_cluster_manifest(const std::filesystem::path& run_folder);  // throws DataError
void write_cluster_manifest(const std::filesystem::path& run_folder, const ClusterManifest& m);
bool is_cluster_run(const std::filesystem::path& run_folder);

// Every node any job of the run ran on or was asked for, in order of first
// appearance.
std::vector<std::string> cluster_nodes(const ClusterManifest& m);

// Where a node's run folder is: nodes/<node>/ under the run folder (or the
// stage folder, on the node).
std::filesystem::path node_run_folder(const std::filesystem::path& base, const std::string& node);

}  // namespace dlcbench
