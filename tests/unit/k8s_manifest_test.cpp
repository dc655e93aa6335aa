// The Kubernetes Job manifests of `dlcbench k8s`: one Job per node, pinned to
// it, running dlcbench's own binary with an argument vector, labelled by run,
// without privileges; and the checks Kubernetes would make that its schema
// does not (DNS-1123 names, quantities, a request within its limit).
#include "cluster/k8s_manifest.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "core/errors.h"
#include "runtimes/image_builder.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

K8sJobRequest two_nodes() {
  K8sJobRequest r;
  r.nodes = {"node-a", "worker-7.example.internal"};
  r.image = "registry.example.com/dlcbench:1.0";
  r.run_id = "20261203-101500-ab12";
  r.results_host_path = "/var/lib/dlcbench/results";
  r.data = "/srv/dlcbench-data";
  r.run_options = {"--workloads", "fcn5", "--runs", "20", "--threads", "2", "--seed", "7"};
  return r;
}

const json& pod_spec(const K8sJob& job) { return job.manifest.at("spec").at("template").at("spec"); }
const json& worker(const K8sJob& job) { return pod_spec(job).at("containers").at(0); }

std::string usage_error(const K8sJobRequest& r) {
  return testing::error_of<UsageError>([&] { k8s_jobs(r); });
}

TEST(K8sManifest, OneJobPerNodePinnedByTheNodesOwnName) {
  const auto jobs = k8s_jobs(two_nodes());
  ASSERT_EQ(jobs.size(), 2u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].node, two_nodes().nodes[i]);
    EXPECT_EQ(jobs[i].manifest.at("apiVersion"), "batch/v1");
    EXPECT_EQ(jobs[i].manifest.at("kind"), "Job");
    EXPECT_EQ(jobs[i].manifest.at("metadata").at("name"), jobs[i].name);
    names.insert(jobs[i].name);
    const json& term = pod_spec(jobs[i])
                           .at("affinity")
                           .at("nodeAffinity")
                           .at("requiredDuringSchedulingIgnoredDuringExecution")
                           .at("nodeSelectorTerms");
    ASSERT_EQ(term.size(), 1u);  // one term: no other node can match
    EXPECT_EQ(term[0].at("matchFields"),
              json::parse(fmt::format(R"([{{"key": "metadata.name", "operator": "In", "values": ["{}"]}}])",
                                      jobs[i].node)));
  }
  EXPECT_EQ(names.size(), 2u);
}

TEST(K8sManifest, RunsOnceWithADeadline) {
  K8sJobRequest r = two_nodes();
  r.active_deadline_seconds = 5400;
  const K8sJob job = k8s_jobs(r).front();
  const json& spec = job.manifest.at("spec");
  EXPECT_EQ(spec.at("backoffLimit"), 0);
  EXPECT_EQ(spec.at("activeDeadlineSeconds"), 5400);
  EXPECT_EQ(spec.at("completions"), 1);
  EXPECT_EQ(pod_spec(job).at("restartPolicy"), "Never");
}

TEST(K8sManifest, TheContainerRunsDlcbenchWithAnArgumentVector) {
  const K8sJob job = k8s_jobs(two_nodes()).front();
  const json& c = worker(job);
  EXPECT_EQ(c.at("command"), json::array({kImageBinaryPath}));
  EXPECT_EQ(c.at("args").get<std::vector<std::string>>(),
            (std::vector<std::string>{"run", "--envs", "host", "--out", "/results/20261203-101500-ab12/$(DLCBENCH_NODE)/pod",
                                      "--data", "/data", "--workloads", "fcn5", "--runs", "20", "--threads", "2",
                                      "--seed", "7"}));
  for (const auto& arg : c.at("args")) EXPECT_NE(arg.get<std::string>(), "-c");  // no `sh -c`
  // The node's name from the downward API, which the results folder uses.
  EXPECT_EQ(c.at("env").at(0),
            json::parse(R"({"name": "DLCBENCH_NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                                 "fieldPath": "spec.nodeName"}}})"));
}

TEST(K8sManifest, ADollarInAnOptionReachesDlcbenchAsTyped) {
  // Kubernetes expands $(NAME) in arguments and reads $$ as $.
  K8sJobRequest r = two_nodes();
  r.run_options = {"--workloads", "io-seq:path=/tmp/$(HOME)$x"};
  EXPECT_EQ(worker(k8s_jobs(r).front()).at("args").back(), "io-seq:path=/tmp/$$(HOME)$$x");
  // The bare host's command is not expanded by Kubernetes: as typed.
  EXPECT_EQ(bare_host_run_arguments(r, "node-a").back(), "io-seq:path=/tmp/$(HOME)$x");
}

TEST(K8sManifest, NoPrivilegeAndNoCapability) {
  const K8sJob job = k8s_jobs(two_nodes()).front();
  const json& security = worker(job).at("securityContext");
  EXPECT_EQ(security.at("privileged"), false);
  EXPECT_EQ(security.at("allowPrivilegeEscalation"), false);
  EXPECT_EQ(security.at("capabilities"), json::parse(R"({"drop": ["ALL"]})"));
  EXPECT_EQ(pod_spec(job).at("securityContext").at("seccompProfile").at("type"), "RuntimeDefault");
  EXPECT_EQ(pod_spec(job).at("automountServiceAccountToken"), false);
  EXPECT_FALSE(pod_spec(job).contains("hostNetwork"));
  EXPECT_FALSE(pod_spec(job).contains("hostPID"));
}

TEST(K8sManifest, LabelsListAndDeleteARunsJobsTogether) {
  for (const auto& job : k8s_jobs(two_nodes())) {
    for (const json* labels : {&job.manifest.at("metadata").at("labels"),
                               &job.manifest.at("spec").at("template").at("metadata").at("labels")}) {
      EXPECT_EQ(labels->at("app.kubernetes.io/name"), "dlcbench");
      EXPECT_EQ(labels->at(kK8sRunLabel), "20261203-101500-ab12");
      EXPECT_EQ(dns1123_label_problem(labels->at("dlcbench.node").get<std::string>()), "");
    }
  }
}

TEST(K8sManifest, ResultsOnAHostPathAndDataReadOnly) {
  const K8sJob job = k8s_jobs(two_nodes()).front();
  EXPECT_EQ(pod_spec(job).at("volumes"), json::parse(R"([
      {"name": "results", "hostPath": {"path": "/var/lib/dlcbench/results", "type": "DirectoryOrCreate"}},
      {"name": "data", "hostPath": {"path": "/srv/dlcbench-data", "type": "Directory"}}])"));
  EXPECT_EQ(worker(job).at("volumeMounts"), json::parse(R"([
      {"name": "results", "mountPath": "/results"},
      {"name": "data", "mountPath": "/data", "readOnly": true}])"));
}

TEST(K8sManifest, ResultsOnAClaimAndSyntheticDataWithoutAFolder) {
  K8sJobRequest r = two_nodes();
  r.results_host_path.clear();
  r.results_claim = "dlcbench-results";
  r.data = "synthetic";
  const K8sJob job = k8s_jobs(r).front();
  EXPECT_EQ(pod_spec(job).at("volumes"),
            json::parse(R"([{"name": "results", "persistentVolumeClaim": {"claimName": "dlcbench-results"}}])"));
  EXPECT_EQ(worker(job).at("volumeMounts").size(), 1u);
  const auto args = worker(job).at("args").get<std::vector<std::string>>();
  EXPECT_THAT(std::vector<std::string>(args.begin() + 5, args.begin() + 7), ElementsAre("--data", "synthetic"));
}

TEST(K8sManifest, ResourcesOnlyWhenGiven) {
  EXPECT_FALSE(worker(k8s_jobs(two_nodes()).front()).contains("resources"));
  K8sJobRequest r = two_nodes();
  r.resources = {"2", "2", "4Gi", "4Gi"};
  EXPECT_EQ(worker(k8s_jobs(r).front()).at("resources"),
            json::parse(R"({"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}})"));
  r.resources = {"", "1500m", "", ""};
  EXPECT_EQ(worker(k8s_jobs(r).front()).at("resources"), json::parse(R"({"limits": {"cpu": "1500m"}})"));
}

TEST(K8sManifest, NamespaceOnlyWhenGiven) {
  EXPECT_FALSE(k8s_jobs(two_nodes()).front().manifest.at("metadata").contains("namespace"));
  K8sJobRequest r = two_nodes();
  r.namespace_name = "bench";
  EXPECT_EQ(k8s_jobs(r).front().manifest.at("metadata").at("namespace"), "bench");
}

TEST(K8sManifest, TheBareHostRunsTheSameOptionsBesideThePod) {
  const auto args = bare_host_run_arguments(two_nodes(), "node-a");
  EXPECT_EQ(args, (std::vector<std::string>{"run", "--envs", "host", "--out",
                                            "/var/lib/dlcbench/results/20261203-101500-ab12/node-a/host", "--data",
                                            "/srv/dlcbench-data", "--workloads", "fcn5", "--runs", "20", "--threads",
                                            "2", "--seed", "7"}));
}

TEST(K8sManifest, JobNamesAreDnsLabelsAndTellNodesApart) {
  const std::string run_id(kK8sMaxRunIdLength, 'r');
  for (const std::string& node : std::vector<std::string>{"node-a", "a.b", "a-b", std::string(200, 'x') + ".example.internal",
                                                           "ip-10-0-12-34.eu-west-1.compute.internal"}) {
    const std::string name = k8s_job_name(run_id, node);
    EXPECT_EQ(dns1123_label_problem(name), "") << name;
    EXPECT_EQ(name.rfind("dlcbench-" + run_id + "-", 0), 0u) << name;
  }
  EXPECT_EQ(k8s_job_name("r1", "node-a"), "dlcbench-r1-node-a");  // unchanged names stay readable
  EXPECT_NE(k8s_job_name("r1", "a.b"), k8s_job_name("r1", "a-b"));
  EXPECT_NE(k8s_job_name(run_id, std::string(60, 'x') + "1"), k8s_job_name(run_id, std::string(60, 'x') + "2"));
}

TEST(K8sManifest, NodeNamesKubernetesCannotHaveAreRefused) {
  K8sJobRequest r = two_nodes();
  r.nodes = {"Node-A"};
  EXPECT_THAT(usage_error(r), HasSubstr("capitals"));
  r.nodes = {"node_a"};
  EXPECT_THAT(usage_error(r), HasSubstr("'_' is not allowed"));
  r.nodes = {"node-a."};
  EXPECT_THAT(usage_error(r), HasSubstr("is not a DNS-1123 label"));
  r.nodes = {"node-a", "node-b", "node-a"};
  EXPECT_THAT(usage_error(r), HasSubstr("node-a is named twice"));
  r.nodes = {};
  EXPECT_THAT(usage_error(r), HasSubstr("--nodes"));
}

TEST(K8sManifest, OtherNamesAndValuesKubernetesWouldRefuse) {
  auto changed = [](auto change) {
    K8sJobRequest r = two_nodes();
    change(r);
    return usage_error(r);
  };
  EXPECT_THAT(changed([](auto& r) { r.namespace_name = "Bench"; }), HasSubstr("--namespace Bench"));
  EXPECT_THAT(changed([](auto& r) { r.run_id = "run_1"; }), HasSubstr("--run-id"));
  EXPECT_THAT(changed([](auto& r) { r.run_id = std::string(kK8sMaxRunIdLength + 1, 'a'); }), HasSubstr("too long"));
  EXPECT_THAT(changed([](auto& r) { r.results_claim = "claim"; }), HasSubstr("exactly one"));
  EXPECT_THAT(changed([](auto& r) { r.results_host_path = "results"; }), HasSubstr("absolute"));
  EXPECT_THAT(changed([](auto& r) { r.data = "data"; }), HasSubstr("--data data"));
  EXPECT_THAT(changed([](auto& r) { r.image = "my image"; }), HasSubstr("--image"));
  EXPECT_THAT(changed([](auto& r) { r.resources.cpu_limit = "two"; }), HasSubstr("--cpu-limit two"));
  EXPECT_THAT(changed([](auto& r) { r.resources.memory_request = "0"; }), HasSubstr("above 0"));
  EXPECT_THAT(changed([](auto& r) { r.resources = {"3", "2", "", ""}; }),
              HasSubstr("--cpu-request 3 is above --cpu-limit 2"));
  EXPECT_THAT(changed([](auto& r) { r.resources = {"", "", "1Gi", "1000Mi"}; }),
              HasSubstr("--memory-request 1Gi is above --memory-limit 1000Mi"));
  EXPECT_THAT(changed([](auto& r) { r.env = {{"DLCBENCH_NODE", "x"}}; }), HasSubstr("dlcbench sets it"));
  EXPECT_THAT(changed([](auto& r) { r.env = {{"1 X", "x"}}; }), HasSubstr("cannot be a variable's name"));
}

TEST(K8sManifest, QuantitiesAsKubernetesReadsThem) {
  EXPECT_EQ(k8s_quantity_value("2"), 2.0);
  EXPECT_EQ(k8s_quantity_value("1500m"), 1.5);
  EXPECT_EQ(k8s_quantity_value("4Gi"), 4.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(k8s_quantity_value("1k"), 1000.0);
  EXPECT_EQ(k8s_quantity_value("1e3"), 1000.0);
  EXPECT_EQ(k8s_quantity_value(".5"), 0.5);
  for (const char* bad : {"", "2 ", "two", "1GB", "1.5.5", "m", "1ki"}) EXPECT_FALSE(k8s_quantity_value(bad)) << bad;
}

TEST(K8sManifest, DnsNames) {
  EXPECT_EQ(dns1123_label_problem("node-1"), "");
  EXPECT_NE(dns1123_label_problem(""), "");
  EXPECT_NE(dns1123_label_problem("-node"), "");
  EXPECT_NE(dns1123_label_problem(std::string(64, 'a')), "");
  EXPECT_EQ(dns1123_label_problem(std::string(63, 'a')), "");
  EXPECT_EQ(dns1123_subdomain_problem("ip-10-0-0-1.ec2.internal"), "");
  EXPECT_NE(dns1123_subdomain_problem("a..b"), "");
  EXPECT_NE(dns1123_subdomain_problem(std::string(254, 'a')), "");
}

}  // namespace
}  // namespace dlcbench
