#include "cluster/k8s_manifest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "runtimes/image_builder.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// FNV-1a: a short, stable tag of a node's full name for its Job's name.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// Kubernetes expands $(VAR) in a container's arguments, and reads $$ as one
// $: every $ a user's option holds is doubled, so it reaches dlcbench as typed.
std::string escape_dollars(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '$') out += '$';
  }
  return out;
}

void check_quantity(const std::string& option, const std::string& text) {
  if (text.empty()) return;
  const auto value = k8s_quantity_value(text);
  if (!value || *value <= 0)
    throw UsageError(fmt::format("{} {}: not a Kubernetes quantity above 0; give one such as 2, 500m (CPUs) or 4Gi, "
                                 "512Mi (memory)",
                                 option, text));
}

// The API server refuses a request above its limit; say so before kubectl does.
void check_request_within_limit(const std::string& what, const std::string& request, const std::string& limit) {
  if (request.empty() || limit.empty()) return;
  if (*k8s_quantity_value(request) > *k8s_quantity_value(limit))
    throw UsageError(fmt::format("--{0}-request {1} is above --{0}-limit {2}: Kubernetes refuses a request above "
                                 "its limit; give a request at most the limit (the same value for both gives the pod "
                                 "the Guaranteed quality of service)",
                                 what, request, limit));
}

// A name Kubernetes checks with `problem` (a DNS-1123 label or subdomain).
void check_name(const std::string& option, const std::string& name, std::string (*problem)(const std::string&),
                const std::string& fix) {
  if (const std::string why = problem(name); !why.empty())
    throw UsageError(fmt::format("{} {}: {}; {}", option, name, why, fix));
}

void check_node(const std::string& node) {
  if (std::any_of(node.begin(), node.end(), [](unsigned char c) { return std::isupper(c); }))
    throw UsageError(fmt::format("--nodes: '{}' holds capitals, and Kubernetes node names never do (they are DNS-1123 "
                                 "subdomains): give the name as `kubectl get nodes` shows it",
                                 node));
  if (const std::string why = dns1123_subdomain_problem(node); !why.empty())
    throw UsageError(fmt::format("--nodes: '{}' cannot be a Kubernetes node name: {}; give the names as `kubectl get "
                                 "nodes` shows them, comma-separated",
                                 node, why));
}

// The results volume (a folder on the nodes, or a claim) and the data folder.
void check_volumes(const K8sJobRequest& r) {
  if (r.results_host_path.empty() == r.results_claim.empty())
    throw UsageError("give the results volume as exactly one of --results-path (a folder on each node) and "
                     "--results-claim (a PersistentVolumeClaim)");
  if (!r.results_host_path.empty() && r.results_host_path.front() != '/')
    throw UsageError(fmt::format("--results-path {}: give an absolute folder on the nodes, e.g. "
                                 "/var/lib/dlcbench/results",
                                 r.results_host_path));
  if (!r.results_claim.empty())
    check_name("--results-claim", r.results_claim, dns1123_subdomain_problem,
               "give the claim's name as `kubectl get pvc` shows it");
  if (r.data != "synthetic" && (r.data.empty() || r.data.front() != '/'))
    throw UsageError(fmt::format("--data {}: give the data folder's absolute path on the nodes (where `dlcbench data "
                                 "fetch` put it there), or synthetic",
                                 r.data));
}

void check_request(const K8sJobRequest& r) {
  if (r.nodes.empty()) throw UsageError("--nodes: give the nodes to measure on, comma-separated (`kubectl get nodes`)");
  std::set<std::string> seen;
  for (const auto& node : r.nodes) {
    check_node(node);
    if (!seen.insert(node).second)
      throw UsageError(fmt::format("--nodes: {} is named twice: each node gets one Job; name it once", node));
  }
  if (r.image.empty() || std::any_of(r.image.begin(), r.image.end(), [](unsigned char c) { return std::isspace(c); }))
    throw UsageError(fmt::format("--image '{}': give the worker image's reference, e.g. "
                                 "registry.example.com/dlcbench:1.0, without spaces",
                                 r.image));
  if (!r.namespace_name.empty())
    check_name("--namespace", r.namespace_name, dns1123_label_problem,
               "give a namespace's name as `kubectl get namespaces` shows it");
  if (const std::string why = dns1123_label_problem(r.run_id); !why.empty() || r.run_id.size() > kK8sMaxRunIdLength)
    throw UsageError(fmt::format("--run-id '{}': {}; give at most {} lowercase letters, digits and '-' (it names the "
                                 "Jobs and labels them)",
                                 r.run_id, why.empty() ? "too long" : why, kK8sMaxRunIdLength));
  check_volumes(r);
  if (r.active_deadline_seconds <= 0)
    throw UsageError("--deadline: give the seconds a Job may run before Kubernetes stops it, above 0");
  check_quantity("--cpu-request", r.resources.cpu_request);
  check_quantity("--cpu-limit", r.resources.cpu_limit);
  check_quantity("--memory-request", r.resources.memory_request);
  check_quantity("--memory-limit", r.resources.memory_limit);
  check_request_within_limit("cpu", r.resources.cpu_request, r.resources.cpu_limit);
  check_request_within_limit("memory", r.resources.memory_request, r.resources.memory_limit);
  static const std::regex variable_name("[-._a-zA-Z][-._a-zA-Z0-9]*");
  std::set<std::string> names = {kK8sNodeVariable};
  for (const auto& [name, value] : r.env) {
    if (!std::regex_match(name, variable_name))
      throw UsageError(fmt::format("--pod-env {}={}: '{}' cannot be a variable's name in Kubernetes; give "
                                   "NAME=VALUE with a name of letters, digits, '_', '-' and '.'",
                                   name, value, name));
    if (!names.insert(name).second)
      throw UsageError(fmt::format("--pod-env {}: {}", name,
                                   name == kK8sNodeVariable ? "dlcbench sets it to the node's name; leave it out"
                                                            : "given twice; give it once"));
  }
}

json pod_labels(const K8sJobRequest& r, const std::string& node_label) {
  return {{"app.kubernetes.io/name", "dlcbench"}, {kK8sRunLabel, r.run_id}, {"dlcbench.node", node_label}};
}

json resource_requirements(const K8sResources& res) {
  json requests = json::object(), limits = json::object();
  if (!res.cpu_request.empty()) requests["cpu"] = res.cpu_request;
  if (!res.memory_request.empty()) requests["memory"] = res.memory_request;
  if (!res.cpu_limit.empty()) limits["cpu"] = res.cpu_limit;
  if (!res.memory_limit.empty()) limits["memory"] = res.memory_limit;
  json out = json::object();
  if (!requests.empty()) out["requests"] = requests;
  if (!limits.empty()) out["limits"] = limits;
  return out;
}

json worker_container(const K8sJobRequest& r) {
  json env = json::array(
      {{{"name", kK8sNodeVariable}, {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "spec.nodeName"}}}}}}});
  for (const auto& [name, value] : r.env) env.push_back({{"name", name}, {"value", value}});
  json mounts = json::array({{{"name", "results"}, {"mountPath", kK8sResultsMount}}});
  if (r.data != "synthetic") mounts.push_back({{"name", "data"}, {"mountPath", kK8sDataMount}, {"readOnly", true}});
  json c = {
      {"name", "dlcbench"},
      {"image", r.image},
      // A side-loaded image (docker load, ctr import on each node) is found
      // even under a :latest tag, which would otherwise always be pulled.
      {"imagePullPolicy", "IfNotPresent"},
      {"command", json::array({kImageBinaryPath})},
      {"args", pod_run_arguments(r)},
      {"env", env},
      {"volumeMounts", mounts},
      // The worker needs no capability: it reads /proc, pins its own threads
      // and writes files it owns. Counters that would need one (perf) are
      // recorded as unavailable, with the reason. The root file system stays
      // writable: io-seq and io-lat measure the container's own file system
      // there (/var/tmp), and the host environment's scratch folder is in /tmp.
      {"securityContext",
       {{"privileged", false}, {"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", json::array({"ALL"})}}}}},
  };
  if (const json res = resource_requirements(r.resources); !res.empty()) c["resources"] = res;
  return c;
}

json pod_volumes(const K8sJobRequest& r) {
  json results = {{"name", "results"}};
  if (!r.results_host_path.empty())
    results["hostPath"] = {{"path", r.results_host_path}, {"type", "DirectoryOrCreate"}};
  else
    results["persistentVolumeClaim"] = {{"claimName", r.results_claim}};
  json out = json::array({results});
  // Type Directory: a node without the data folder fails the pod at once
  // (the event names the path) rather than measuring an empty folder.
  if (r.data != "synthetic") out.push_back({{"name", "data"}, {"hostPath", {{"path", r.data}, {"type", "Directory"}}}});
  return out;
}

json job_manifest(const K8sJobRequest& r, const std::string& node, const std::string& name) {
  const std::string node_label = name.substr(std::string("dlcbench-").size() + r.run_id.size() + 1);
  json metadata = {{"name", name}, {"labels", pod_labels(r, node_label)}};
  if (!r.namespace_name.empty()) metadata["namespace"] = r.namespace_name;
  json pod_spec = {
      {"restartPolicy", "Never"},
      // Pinned by the node's own name (the field the scheduler matches), not
      // by a label: kubernetes.io/hostname need not equal the node's name.
      {"affinity",
       {{"nodeAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms",
             json::array({{{"matchFields",
                            json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {node}}}})}}})}}}}}}},
      // The worker never calls the Kubernetes API, and the variables of every
      // service in the namespace would only be noise in its environment.
      {"automountServiceAccountToken", false},
      {"enableServiceLinks", false},
      // The runtime's default seccomp profile, as Docker and Podman apply by
      // default: the container side measured as a container usually runs.
      {"securityContext", {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", json::array({worker_container(r)})},
      {"volumes", pod_volumes(r)},
  };
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", metadata},
      {"spec",
       {
           // One attempt: a failed run is looked at, not measured again on
           // top of what it left in the results folder.
           {"backoffLimit", 0},
           {"completions", 1},
           {"parallelism", 1},
           {"activeDeadlineSeconds", r.active_deadline_seconds},
           {"template", {{"metadata", {{"labels", pod_labels(r, node_label)}}}, {"spec", pod_spec}}},
       }},
  };
}

}  // namespace

std::string dns1123_label_problem(const std::string& text) {
  if (text.empty()) return "it is empty";
  if (text.size() > 63) return fmt::format("it has {} characters, and at most 63 are allowed", text.size());
  for (char c : text)
    if (!lower_alnum(c) && c != '-')
      return fmt::format("'{}' is not allowed (only lowercase letters, digits and '-')", c);
  if (!lower_alnum(text.front()) || !lower_alnum(text.back()))
    return "it must start and end with a lowercase letter or a digit";
  return "";
}

std::string dns1123_subdomain_problem(const std::string& text) {
  if (text.empty()) return "it is empty";
  if (text.size() > 253) return fmt::format("it has {} characters, and at most 253 are allowed", text.size());
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = text.find('.', start);
    const std::string part = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (const std::string why = dns1123_label_problem(part); !why.empty())
      return fmt::format("its part '{}' is not a DNS-1123 label: {}", part, why);
    if (dot == std::string::npos) return "";
    start = dot + 1;
  }
}

std::optional<double> k8s_quantity_value(const std::string& text) {
  // Kubernetes' grammar (resource.Quantity): a number, then one binary or
  // decimal suffix, or a decimal exponent.
  static const std::regex quantity(R"(([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?)");
  std::smatch m;
  if (!std::regex_match(text, m, quantity)) return std::nullopt;
  double value = std::stod(m[1].str());
  const std::string suffix = m[2].str();
  static const std::vector<std::pair<std::string, double>> scales = {
      {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60},
      {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},    {"k", 1e3},     {"M", 1e6},     {"G", 1e9},
      {"T", 1e12},    {"P", 1e15},    {"E", 1e18}};
  if (suffix.empty()) return value;
  for (const auto& [name, scale] : scales)
    if (suffix == name) return value * scale;
  return value * std::pow(10.0, std::stod(suffix.substr(1)));  // e3, E-2
}

std::string k8s_job_name(const std::string& run_id, const std::string& node) {
  const std::string prefix = fmt::format("dlcbench-{}-", run_id);
  const std::size_t room = 63 - prefix.size();
  std::string part = node;
  std::replace(part.begin(), part.end(), '.', '-');
  if (part == node && part.size() <= room) return prefix + part;
  // "a.b" and "a-b" would both be a-b; the hash of the original tells them apart.
  std::string kept = part.substr(0, room - 7);
  while (!kept.empty() && kept.back() == '-') kept.pop_back();
  return fmt::format("{}{}-{:06x}", prefix, kept, fnv1a(node) & 0xffffff);
}

std::string k8s_results_subfolder(const std::string& run_id, const std::string& node, const std::string& side) {
  return fmt::format("{}/{}/{}", run_id, node, side);
}

std::vector<std::string> pod_run_arguments(const K8sJobRequest& r) {
  std::vector<std::string> args = {
      "run",
      "--envs",
      "host",
      "--out",
      fmt::format("{}/{}", kK8sResultsMount, k8s_results_subfolder(r.run_id, fmt::format("$({})", kK8sNodeVariable), "pod")),
      "--data",
      r.data == "synthetic" ? r.data : kK8sDataMount};
  for (const auto& option : r.run_options) args.push_back(escape_dollars(option));
  return args;
}

std::vector<std::string> bare_host_run_arguments(const K8sJobRequest& r, const std::string& node) {
  const std::string folder = k8s_results_subfolder(r.run_id, node, "host");
  std::vector<std::string> args = {
      "run", "--envs", "host", "--out",
      r.results_host_path.empty() ? "results/" + folder : fmt::format("{}/{}", r.results_host_path, folder), "--data",
      r.data};
  args.insert(args.end(), r.run_options.begin(), r.run_options.end());
  return args;
}

std::vector<K8sJob> k8s_jobs(const K8sJobRequest& request) {
  check_request(request);
  std::vector<K8sJob> jobs;
  std::set<std::string> names;
  for (const auto& node : request.nodes) {
    const std::string name = k8s_job_name(request.run_id, node);
    if (!names.insert(name).second)  // two hashes alike: never seen, but a silent overwrite would lose a node
      throw UsageError(fmt::format("--nodes: {} would get the Job name {} of another node; give another --run-id",
                                   node, name));
    jobs.push_back({node, name, job_manifest(request, node, name)});
  }
  return jobs;
}

}  // namespace dlcbench
