// Kubernetes Job manifests that run `dlcbench run` on named nodes, one Job
// per node (`dlcbench k8s`). Pure: options in, JSON documents out; nothing
// here reads the machine or talks to a cluster.
//
// What a Job measures: inside a pod there is no bare host to compare with,
// so the pod runs `dlcbench run --envs host`: dlcbench's host environment,
// which inside the pod is the container side. The bare-host side is the same
// command run on the node itself (bare_host_run_arguments), and `dlcbench
// compare BARE POD` puts the two side by side (both label their environment
// "host", which is what compare matches on).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

// Where the pod sees the results volume and the data folder.
inline constexpr const char* kK8sResultsMount = "/results";
inline constexpr const char* kK8sDataMount = "/data";
// The node's name, from the downward API (spec.nodeName), for the results
// folder: a results volume shared by every node (a PVC) keeps them apart.
inline constexpr const char* kK8sNodeVariable = "DLCBENCH_NODE";
// Job names are used as the value of the job-name label of their pods, so
// they are DNS-1123 labels: 63 characters at most. The run id takes at most
// this many of them, leaving room for "dlcbench-" and the node.
inline constexpr std::size_t kK8sMaxRunIdLength = 24;
// The label every object dlcbench writes carries, with the run id as value:
// `kubectl delete jobs -l dlcbench.run=ID`. The same key names Docker's
// containers of a run.
inline constexpr const char* kK8sRunLabel = "dlcbench.run";

struct K8sResources {
  // Kubernetes quantities ("2", "500m", "4Gi"); empty: not set.
  std::string cpu_request, cpu_limit, memory_request, memory_limit;
};

struct K8sJobRequest {
  std::vector<std::string> nodes;  // node names as `kubectl get nodes` shows them
  std::string image;               // holds dlcbench at kImageBinaryPath
  std::string namespace_name;      // empty: the namespace kubectl applies to
  std::string run_id;              // a DNS-1123 label of at most kK8sMaxRunIdLength
  // The results volume: a folder on each node, or a PersistentVolumeClaim
  // (exactly one of the two).
  std::string results_host_path;
  std::string results_claim;
  // The data folder on each node (mounted read-only), or "synthetic".
  std::string data = "synthetic";
  // Options of `dlcbench run` that say what to measure (--workloads fcn5
  // --runs 20 ...), passed to the pod's run as they are.
  std::vector<std::string> run_options;
  long active_deadline_seconds = 6 * 3600;
  K8sResources resources;
  std::vector<std::pair<std::string, std::string>> env;  // extra variables for the pod
};

struct K8sJob {
  std::string node;
  std::string name;  // the Job's name, also its file's
  nlohmann::json manifest;
};

// One Job per node. Throws UsageError naming the problem and its fix for a
// node, namespace, run id, claim, path, quantity or variable Kubernetes would
// refuse, and for a node named twice.
std::vector<K8sJob> k8s_jobs(const K8sJobRequest& request);

// The pod's `dlcbench run` arguments (after the program): `run --envs host
// --out /results/<run-id>/$(DLCBENCH_NODE)/pod --data ... OPTIONS`, with any
// `$` in the options doubled so Kubernetes does not expand it.
std::vector<std::string> pod_run_arguments(const K8sJobRequest& request);

// The same measurement on `node`'s bare host, for `dlcbench compare`: its
// results go beside the pod's when the results volume is a folder on the
// node, else under results/ where it is run.
std::vector<std::string> bare_host_run_arguments(const K8sJobRequest& request, const std::string& node);

// Where a side ("pod" or "host") of `node` writes, inside the results volume:
// <run-id>/<node>/<side>; `dlcbench run` makes its run's folder in it.
std::string k8s_results_subfolder(const std::string& run_id, const std::string& node, const std::string& side);

// The Job's name for `node`: dlcbench-<run-id>-<node>, the node's dots made
// dashes; a node name that had to change or be shortened gets a hash of the
// original, so two nodes never share a name.
std::string k8s_job_name(const std::string& run_id, const std::string& node);

// Why `text` is not a DNS-1123 label (lowercase letters, digits and '-',
// starting and ending with a letter or digit, at most 63 characters), or ""
// when it is one. Namespaces, run ids and Job names must be.
std::string dns1123_label_problem(const std::string& text);

// The same for a DNS-1123 subdomain (labels joined by '.', at most 253
// characters): node names and claim names.
std::string dns1123_subdomain_problem(const std::string& text);

// A Kubernetes quantity's value in its unit (cores for "500m": 0.5), or
// nothing when `text` is not a quantity.
std::optional<double> k8s_quantity_value(const std::string& text);

}  // namespace dlcbench
