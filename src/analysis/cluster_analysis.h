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
#include "cluster/cluster_manifest.h"
#include "core/manifest.h"
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

struct ClusterAnalysis {
  ClusterManifest manifest;
  std::string baseline;
  std::vector<NodeRun> nodes;
  std::vector<ClusterCase> cases;
  std::vector<NodeDifference> differences;
  std::vector<std::string> notes;
  bool complete() const;  // every node found, nothing missing
};

ClusterAnalysis analyze_cluster(const std::filesystem::path& run_folder);

// The fields of two nodes' own fingerprints that differ (every field but
// the host name and namespace ids, which differ by nature).
std::vector<Mismatch> compare_node_fingerprints(const nlohmann::json& reference, const nlohmann::json& other);

}  // namespace dlcbench
