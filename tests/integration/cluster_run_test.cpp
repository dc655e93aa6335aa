// `dlcbench run --slurm` against a real Slurm cluster: the local one of
// scripts/with-slurm.sh (munged, slurmctld and two slurmd nodes on this
// machine), which .ci/run starts around these tests. Without a controller
// they skip, unless DLCBENCH_REQUIRE_SLURM=1 (CI), where that is a failure.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/process.h"
#include "core/results_file.h"
#include "core/scratch_dir.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace dlcbench;
using namespace dlcbench::testing;

namespace {

bool slurm_answers() {
  const auto ping = capture_output({"scontrol", "ping"}, 30);
  return ping.result.ok() && ping.out.find("is UP") != std::string::npos;
}

#define REQUIRE_SLURM()                                                                                        \
  do {                                                                                                         \
    if (!slurm_answers()) {                                                                                    \
      if (std::getenv("DLCBENCH_REQUIRE_SLURM")) FAIL() << "no Slurm controller answers (scripts/with-slurm.sh)"; \
      GTEST_SKIP() << "no Slurm controller answers: run the tests under scripts/with-slurm.sh";               \
    }                                                                                                          \
  } while (0)

// Every launch record of every node, with its node.
struct Launch {
  std::string node, env, instance;
  double start = 0, end = 0;
  bool ok = false;
};
std::vector<Launch> launches_of(const fs::path& run) {
  std::vector<Launch> out;
  for (const auto& entry : fs::directory_iterator(run / "nodes"))
    for (const auto& r : read_results(entry.path() / "results.jsonl").records)
      if (r.value("type", "") == "launch")
        out.push_back({entry.path().filename().string(), r.value("env", ""), r.value("instance", ""),
                       r.value("started_unix", 0.0), r.value("ended_unix", 0.0), r.value("ok", false)});
  return out;
}

nlohmann::json report_json(const fs::path& run) {
  const CliResult r = run_dlcbench({"report", run.string(), "--format", "json"});
  return nlohmann::json::parse(r.out);
}

const nlohmann::json* case_of(const nlohmann::json& report, const std::string& prefix) {
  for (const auto& c : report["cases"])
    if (c["case"].get<std::string>().rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

// Both nodes, every runtime: the merged report, each node's run whole, the
// nodes taking turns on this one machine, and containers named per node.
TEST(ClusterRun, EveryNodeRunsThePlanAndTheReportMergesThem) {
  REQUIRE_SLURM();
  std::vector<std::string> envs = {"host", "docker", "runc", "crun", "charliecloud"};
  if (!docker_reachable()) envs.erase(envs.begin() + 1);
  std::string env_list;
  for (const auto& e : envs) env_list += (env_list.empty() ? "" : ",") + e;
  const ScratchDir out("dlcbench-cluster-test");
  const CliResult r = run_dlcbench({"run", "--slurm", "--nodes", "2", "--envs", env_list, "--workloads", "fcn5,startup",
                                    "--runs", "2", "--warmup", "1", "--iters", "3", "--starts", "3", "--threads", "1",
                                    "--data", "synthetic", "--out", out.path().string(), "--seed", "7",
                                    "--allreduce", "--allreduce-sizes", "8K,1M", "--allreduce-iterations", "10"},
                                   {}, 1500);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const fs::path run = only_run_dir(out.path());
  const auto cluster = read_json_file(run / "cluster.json");
  EXPECT_EQ(cluster["transfer"], "shared");
  EXPECT_EQ(cluster["allreduce"]["status"], "completed") << cluster["allreduce"].dump(2);
  EXPECT_EQ(cluster["status"], "completed");
  ASSERT_EQ(cluster["jobs"].size(), 1u);
  EXPECT_EQ(cluster["jobs"][0]["state"], "COMPLETED");
  const std::set<std::string> nodes = {"dlcnode1", "dlcnode2"};
  for (const auto& node : nodes) {
    const auto manifest = read_json_file(run / "nodes" / node / "manifest.json");
    EXPECT_EQ(manifest["status"], "completed") << node;
    EXPECT_EQ(manifest["cluster"]["node"], node);
    EXPECT_EQ(manifest["cluster"]["run"], cluster["run_id"]);
    EXPECT_FALSE(manifest["cluster"]["job"].get<std::string>().empty());
  }
  // Each node its own order: seeds derived from the run's and the node's name.
  EXPECT_NE(read_json_file(run / "nodes/dlcnode1/manifest.json")["plan"]["seed"],
            read_json_file(run / "nodes/dlcnode2/manifest.json")["plan"]["seed"]);

  auto launches = launches_of(run);
  std::set<std::string> seen_nodes;
  for (const auto& l : launches) {
    seen_nodes.insert(l.node);
    EXPECT_TRUE(l.ok) << l.instance;
    // Containers are named by the node's own run id: one node's clean-up never matches another's.
    EXPECT_NE(l.instance.find(cluster["run_id"].get<std::string>() + "-" + l.node + "-"), std::string::npos) << l.instance;
  }
  EXPECT_EQ(seen_nodes, nodes);
  ASSERT_GE(launches.size(), 2 * envs.size() * 2 * 2);
  // The nodes share this machine: their launches never overlap.
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < launches.size(); ++i)
    EXPECT_GE(launches[i].start, launches[i - 1].end)
        << launches[i - 1].instance << " ends after " << launches[i].instance << " starts";

  const auto report = report_json(run);
  EXPECT_TRUE(report["complete"].get<bool>());
  // The same machine under both names: nothing differs but the name.
  EXPECT_TRUE(report["differences"].empty()) << report["differences"].dump(2);
  const nlohmann::json* fcn5 = case_of(report, "fcn5");
  ASSERT_NE(fcn5, nullptr);
  ASSERT_EQ((*fcn5)["nodes"].size(), 2u);
  for (const auto& n : (*fcn5)["nodes"]) {
    EXPECT_EQ(n["overheads"].size(), envs.size() - 1) << n.dump();
    EXPECT_TRUE(n.contains("spread"));
  }
  EXPECT_EQ((*fcn5)["pooled"].size(), envs.size() - 1);
  EXPECT_GT((*fcn5)["spread_ratio"].get<double>(), 1.0);
  // Starting a container costs time on every node, and across them.
  const nlohmann::json* startup = case_of(report, "startup");
  ASSERT_NE(startup, nullptr);
  for (const auto& o : (*startup)["pooled"]) {
    if (o["env"] == "charliecloud") continue;  // ch-run starts in milliseconds, like a process
    EXPECT_GT(o["ratio"].get<double>(), 1.5) << o.dump();
  }

  // The all-reduce: one rank on each node, in every environment (the
  // containers on the host's network), every sum right, paired by round.
  std::set<std::pair<std::string, int>> steps;
  for (const auto& line : read_results(run / "allreduce.jsonl").records) {
    ASSERT_FALSE(line.contains("error")) << line.dump();
    EXPECT_TRUE(line["correct"].get<bool>()) << line.dump();
    EXPECT_EQ(line["nodes"], nlohmann::json({"dlcnode1", "dlcnode2"})) << line.dump();
    EXPECT_EQ(line["seconds"].size(), 10u);
    steps.insert({line["env"].get<std::string>(), line["round"].get<int>()});
  }
  EXPECT_EQ(steps.size(), envs.size() * 2);
  const auto& allreduce = report["allreduce"];
  EXPECT_EQ(allreduce["ranks"], 2);
  ASSERT_EQ(allreduce["sizes"].size(), 2u);
  for (const auto& size : allreduce["sizes"]) {
    EXPECT_EQ(size["overheads"].size(), envs.size() - 1) << size.dump();
    EXPECT_EQ(size["bus_gbps"].size(), envs.size()) << size.dump();
    for (const auto& [env, gbps] : size["bus_gbps"].items()) EXPECT_GT(gbps.get<double>(), 0) << env;
  }
  if (docker_reachable()) {
    EXPECT_TRUE(allreduce["sizes"][0]["bus_gbps"].contains("docker:network=host"));
  }

  for (const auto& format : {"console", "md", "html"}) {
    const CliResult shown = run_dlcbench({"report", run.string(), "--format", format});
    EXPECT_EQ(shown.exit_code, 0) << format << shown.err;
    EXPECT_NE(shown.out.find("dlcnode2"), std::string::npos) << format;
    EXPECT_NE(shown.out.find("all nodes"), std::string::npos) << format;
    EXPECT_NE(shown.out.find("all-reduce across 2 nodes"), std::string::npos) << format;
  }
}

// Private folders per node, staged back over srun; one node made slow on
// purpose shows as spread between nodes, not as the container's cost.
TEST(ClusterRun, StagedFoldersComeBackAndASlowNodeIsSpreadNotOverhead) {
  REQUIRE_SLURM();
  const ScratchDir out("dlcbench-cluster-test");
  const ScratchDir stage("dlcbench-cluster-stage");
  const CliResult r = run_dlcbench({"run", "--slurm", "--nodes", "2", "--envs", "host,runc", "--workloads", "fcn5",
                                    "--runs", "5", "--warmup", "1", "--iters", "3", "--threads", "1", "--data",
                                    "synthetic", "--out", out.path().string(), "--stage", stage.path().string(),
                                    "--node-cpu-quota", "dlcnode2=0.4"},
                                   {}, 1500);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const fs::path run = only_run_dir(out.path());
  const auto cluster = read_json_file(run / "cluster.json");
  EXPECT_EQ(cluster["transfer"], "staged");
  EXPECT_EQ(cluster["jobs"][0]["staged"]["dlcnode1"], "ok");
  EXPECT_EQ(cluster["jobs"][0]["staged"]["dlcnode2"], "ok");
  for (const auto* node : {"dlcnode1", "dlcnode2"})
    EXPECT_TRUE(fs::is_regular_file(run / "nodes" / node / "results.jsonl")) << node;
  // Nothing left on the nodes: the stage folder of the run is gone, and no quota cgroup stays.
  EXPECT_TRUE(fs::is_empty(stage.path())) << "left in " << stage.path();
  for (const auto* h : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup"}) {
    if (!fs::is_directory(h)) continue;
    for (const auto& entry : fs::directory_iterator(h)) {
      EXPECT_EQ(entry.path().filename().string().rfind("dlcbench-node-", 0), std::string::npos) << entry.path();
    }
  }

  const auto report = report_json(run);
  const nlohmann::json* fcn5 = case_of(report, "fcn5");
  ASSERT_NE(fcn5, nullptr);
  EXPECT_EQ((*fcn5)["slowest"], "dlcnode2");
  EXPECT_GT((*fcn5)["spread_ratio"].get<double>(), 1.4) << fcn5->dump(2);
  EXPECT_NE(std::find((*fcn5)["odd_nodes"].begin(), (*fcn5)["odd_nodes"].end(), "dlcnode2"), (*fcn5)["odd_nodes"].end());
  // runc on the slow node runs under the same quota as its host: no cost of runc's own.
  for (const auto& n : (*fcn5)["nodes"])
    for (const auto& o : n["overheads"]) EXPECT_LT(std::abs(o["ratio"].get<double>() - 1), 0.25) << n.dump(2);
  ASSERT_EQ((*fcn5)["pooled"].size(), 1u);
  EXPECT_LT(std::abs((*fcn5)["pooled"][0]["ratio"].get<double>() - 1), 0.2) << fcn5->dump(2);
  const CliResult md = run_dlcbench({"report", run.string(), "--format", "md"});
  EXPECT_NE(md.out.find("dlcnode2 differs from the other nodes on the host as well"), std::string::npos) << md.out;
}

// scancel of one node's step: what it measured stays, the report names the
// missing rounds, and --resume completes them on that node alone.
TEST(ClusterRun, ACancelledNodeStepKeepsItsResultsAndResumeCompletesThem) {
  REQUIRE_SLURM();
  const ScratchDir out("dlcbench-cluster-test");
  const fs::path log = out.path() / "run.log";
  const pid_t pid = spawn_dlcbench({"run", "--slurm", "--nodes", "2", "--envs", "host,runc", "--workloads", "fcn5",
                                    "--runs", "6", "--warmup", "1", "--iters", "3", "--threads", "1", "--data",
                                    "synthetic", "--out", out.path().string()},
                                   log);
  // Once dlcnode1 has measured two launches, its step is cancelled.
  fs::path run;
  ASSERT_TRUE(wait_until(
      [&] {
        for (const auto& e : fs::directory_iterator(out.path()))
          if (e.is_directory()) run = e.path();
        if (run.empty() || !fs::exists(run / "nodes/dlcnode1/results.jsonl")) return false;
        int n = 0;
        for (const auto& rec : read_results(run / "nodes/dlcnode1/results.jsonl").records)
          n += rec.value("type", "") == "launch";
        return n >= 2;
      },
      600));
  const auto steps = capture_output({"squeue", "-h", "-s", "-o", "%i %N"}, 30);
  std::string step;
  std::istringstream lines(steps.out);
  for (std::string id, node; lines >> id >> node;)
    if (node == "dlcnode1" && id.find(".batch") == std::string::npos) step = id;
  ASSERT_FALSE(step.empty()) << steps.out;
  ASSERT_TRUE(capture_output({"scancel", step}, 30).result.ok());
  const int status = exit_status_within(pid, 900);
  EXPECT_EQ(status, 1) << "a run with a node missing rounds ends as a failure";

  auto report = report_json(run);
  EXPECT_FALSE(report["complete"].get<bool>());
  for (const auto& n : report["nodes"]) {
    if (n["node"] == "dlcnode1") {
      EXPECT_FALSE(n["missing_rounds"].empty()) << n.dump();
      // scancel ends a step with SIGKILL: the node's manifest could not say so.
      EXPECT_NE(n["status"], "completed");
    } else {
      EXPECT_TRUE(n["missing_rounds"].empty()) << n.dump();
    }
  }
  const std::size_t before = launches_of(run).size();
  const CliResult console = run_dlcbench({"report", run.string()});
  EXPECT_NE(console.out.find("dlcnode1: round"), std::string::npos) << console.out;

  const CliResult resumed = run_dlcbench({"run", "--resume", run.string()}, {}, 1500);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err << resumed.out;
  EXPECT_NE(resumed.err.find("continuing 1 node on dlcnode1"), std::string::npos) << resumed.err;
  report = report_json(run);
  EXPECT_TRUE(report["complete"].get<bool>()) << report["nodes"].dump(2);
  const auto cluster = read_json_file(run / "cluster.json");
  ASSERT_EQ(cluster["jobs"].size(), 2u);
  EXPECT_EQ(cluster["jobs"][1]["nodes"], nlohmann::json::array({"dlcnode1"}));
  EXPECT_GT(launches_of(run).size(), before);
  EXPECT_FALSE(read_json_file(run / "nodes/dlcnode1/manifest.json")["resumed"].empty());
}

TEST(ClusterRun, APartitionSlurmDoesNotKnowIsRefusedWithSlurmsOwnWords) {
  REQUIRE_SLURM();
  const ScratchDir out("dlcbench-cluster-test");
  const CliResult r = run_dlcbench({"run", "--slurm", "--partition", "nosuchpartition", "--envs", "host", "--workloads",
                                    "fcn5", "--data", "synthetic", "--out", out.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("invalid partition"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sbatch --test-only"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(out.path())) << "nothing is made before Slurm accepts the allocation";
}

TEST(ClusterRun, NoControllerAnsweringSaysWhatToStart) {
  const ScratchDir out("dlcbench-cluster-test");
  const fs::path conf = out.path() / "slurm.conf";
  std::ofstream(conf) << "ClusterName=none\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\n"
                         "AuthType=auth/none\nNodeName=x CPUs=1\nPartitionName=p Nodes=x\n";
  const CliResult r = run_dlcbench({"run", "--slurm", "--envs", "host", "--workloads", "fcn5", "--data", "synthetic",
                                    "--out", (out.path() / "results").string()},
                                   {{"SLURM_CONF", conf.string()}}, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.err.find("no Slurm controller answers") != std::string::npos ||
              r.err.find("is not on PATH") != std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out.path() / "results"));
}

}  // namespace
