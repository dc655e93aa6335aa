// A cluster run (`run --slurm`) analysed: each node's run as one machine's,
// then across nodes. The container overhead of each node is paired within
// the node (its own baseline, round by round); the spread between nodes is
// each node's baseline against the other nodes' baselines. Kept apart, "node
// 7 is 12% slower on the host as well" never reads as a container's cost.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "model/cluster_manifest.h"
#include "model/manifest.h"
#include "core/mismatch.h"

namespace dlcbench {

struct NodeRun {
  std::string node;
  bool found = false;       // nodes/<node>/ holds a run this dlcbench reads
  std::string problem;      // why not: never started, never brought back, unreadable
  Manifest manifest;
  Analysis analysis;
  int rounds_planned = 0;
  std::vector<int> missing_rounds;     // rounds with a launch never measured, or only failed
  std::size_t missing_launches = 0;
  std::map<std::string, std::string> unavailable;  // environment -> why the node could not run it
  std::optional<double> cpu_quota;                 // --node-cpu-quota planted on it
  std::string hostname;                            // as its fingerprint read it
};

// One node in one case.
struct NodeCaseFigures {
  std::string node;
  std::optional<Summary> baseline;             // the baseline's run values on this node
  // This node's baseline against every other node's (unpaired: two-sample
  // Hodges-Lehmann with the Mann-Whitney interval). Needs two nodes.
  std::optional<Overhead> spread;
  std::map<std::string, Overhead> overheads;   // environment -> its overhead on this node
};

struct ClusterCase {
  std::string case_id, unit;
  std::string baseline;
  std::vector<std::string> environments;       // compared with the baseline, in plan order
  std::vector<NodeCaseFigures> nodes;
  // Across nodes: every node's rounds as pairs (node, round), so the
  // estimate is of the container's cost within a node, free of the spread.
  std::map<std::string, Overhead> pooled;
  // The slowest node's baseline mean over the fastest's (1 = no spread).
  double spread_ratio = 0;
  std::string slowest, fastest;
  // Nodes whose baseline differs significantly from the others'.
  std::vector<std::string> odd_nodes;
};

// A fingerprint field that differs between a node and the reference node
// (the first with results), for the node's own process ("node") or an
// environment's workers.
struct NodeDifference {
  std::string node, reference, scope;  // scope: "node" or an environment's label
  Mismatch mismatch;
};

// `run --slurm --allreduce` (cluster/allreduce_run.h): one message size.
// A round's run value is the mean of its timed calls (each the slowest
// rank's time), so the overhead is paired by round as in the nodes' cases.
struct AllreduceSize {
  long bytes = 0;
  std::map<std::string, double> median_seconds;  // environment -> the median call over every round
  std::map<std::string, double> bus_gbps;        // environment -> bus bandwidth at that median (GB/s)
  std::map<std::string, Overhead> overheads;     // environment -> against the baseline
};

struct AllreduceFigures {
  std::string baseline;                   // the host, where it ran
  std::vector<std::string> environments;  // compared with it, in the order given
  std::vector<std::string> nodes;         // one rank on each
  std::string mpi_library;
  int ranks = 0, rounds = 0, iterations = 0;
  std::vector<AllreduceSize> sizes;
  std::vector<std::string> failures;      // "docker:network=host, round 2: why"
  std::vector<std::string> left_out;      // environments it could not run in, with why
  std::string status, error;              // as cluster.json has them
};

// The figures of allreduce.jsonl in `dir`, with the manifest's description.
AllreduceFigures analyze_allreduce(const std::filesystem::path& dir, const ClusterAllreduce& described, double margin);

// Bus bandwidth of an all-reduce (as nccl-tests define it): the bytes each
// rank sends and receives per second, bytes / seconds * 2 (ranks - 1) / ranks.
double allreduce_bus_gbps(long bytes, double seconds, int ranks);

struct ClusterAnalysis {
  ClusterManifest manifest;
  std::string baseline;
  std::vector<NodeRun> nodes;
  std::vector<ClusterCase> cases;
  std::vector<NodeDifference> differences;
  std::vector<std::string> notes;
  std::optional<AllreduceFigures> allreduce;  // run --slurm --allreduce
  bool complete() const;  // every node found, nothing missing
};

ClusterAnalysis analyze_cluster(const std::filesystem::path& run_folder);

// The fields of two nodes' own fingerprints that differ (every field but
// the host name and namespace ids, which differ by nature).
std::vector<Mismatch> compare_node_fingerprints(const nlohmann::json& reference, const nlohmann::json& other);

}  // namespace dlcbench
