// Host versus a real Docker Engine. `.ci/run` starts the engine and sets
// DLCBENCH_REQUIRE_DOCKER=1, so there a missing engine fails instead of
// skipping.
#include <sched.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"
#include "workloads/loader/loader.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

void require_docker() {
  if (testing::docker_reachable()) return;
  const char* required = std::getenv("DLCBENCH_REQUIRE_DOCKER");
  if (required && std::string(required) == "1")
    FAIL() << "no Docker Engine answers, and DLCBENCH_REQUIRE_DOCKER=1: run the tests under scripts/with-docker.sh";
  GTEST_SKIP() << "no Docker Engine answers; run under scripts/with-docker.sh to include this test";
}

TEST(Docker, HostAndDockerBothMeasureIdenticalBits) {
  require_docker();
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--verbose", "--workloads", "fcn5", "--envs", "host,docker", "--runs", "2", "--iters",
                                  "3", "--warmup", "1", "--batch", "8", "--data", "synthetic", "--out",
                                  out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("docker vs host"));

  const auto run_dir = testing::only_run_dir(out.path());
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "completed");
  EXPECT_EQ(manifest["environments"]["docker"]["image_built_by_dlcbench"], true);
  const auto by_env = testing::summarize_by_env(testing::read_records(run_dir));
  for (const char* env : {"host", "docker"}) {
    ASSERT_TRUE(by_env.count(env)) << env;
    EXPECT_EQ(by_env.at(env).ok_launches, 2) << env;
    EXPECT_EQ(by_env.at(env).measured, 6) << env;
    ASSERT_EQ(by_env.at(env).fingerprints.size(), 2u) << env;
  }
  const json& host = by_env.at("host").fingerprints[0];
  const json& docker = by_env.at("docker").fingerprints[0];
  // The container says it is one, and it is a different mount namespace
  // from the orchestrator's, whereas the host worker shares it.
  EXPECT_TRUE(docker["container"]["in_container"].get<bool>());
  EXPECT_THAT(docker["container"]["detected_by"].get<std::string>(), HasSubstr(".dockerenv"));
  EXPECT_NE(docker["mount_namespace"], manifest["orchestrator"]["mount_namespace"]);
  EXPECT_EQ(host["mount_namespace"], manifest["orchestrator"]["mount_namespace"]);
  // Identical bits and settings on both sides.
  EXPECT_EQ(docker["binary_sha256"], host["binary_sha256"]);
  EXPECT_EQ(docker["blas"]["core"], host["blas"]["core"]);
  EXPECT_EQ(docker["backend"]["threads"], host["backend"]["threads"]);
  EXPECT_EQ(docker["variables"]["OMP_NUM_THREADS"], host["variables"]["OMP_NUM_THREADS"]);

  // No container is left behind.
  auto ps = capture_output({"docker", "ps", "--all", "--quiet", "--filter",
                            "label=dlcbench.run=" + manifest["run_id"].get<std::string>()});
  EXPECT_TRUE(ps.result.ok());
  EXPECT_EQ(ps.out, "");
}

// Two runs started together with the same seed into the same folder: each
// gets its own run id, containers and image tag, so the one that ends first
// removes nothing the other still uses, and nothing of either is left.
TEST(Docker, TwoRunsAtOnceNeitherBreaksTheOther) {
  require_docker();
  testing::TempDir out;
  std::vector<pid_t> runs;
  for (int i = 0; i < 2; ++i)
    runs.push_back(testing::spawn_dlcbench(
        {"run", "--workloads", "fcn5", "--envs", "host,docker", "--runs", "3", "--iters", "3", "--warmup", "1",
         "--batch", "8", "--data", "synthetic", "--seed", "5", "--out", out.path().string()},
        out / ("log" + std::to_string(i))));
  for (const pid_t pid : runs) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  std::vector<json> manifests;
  for (const auto& entry : std::filesystem::directory_iterator(out.path()))
    if (entry.is_directory()) manifests.push_back(json::parse(std::ifstream(entry.path() / "manifest.json")));
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_NE(manifests[0]["run_id"], manifests[1]["run_id"]);
  bool removed_at_end = false;
  for (const auto& m : manifests) {
    EXPECT_EQ(m["status"], "completed");
    EXPECT_EQ(m["failed_launches"], 0);
    EXPECT_EQ(m["environments"]["docker"]["image"], manifests[0]["environments"]["docker"]["image"]);
    removed_at_end = removed_at_end || !m["environments"]["docker"]["image_kept_after_run"].get<bool>();
    auto ps = capture_output({"docker", "ps", "--all", "--quiet", "--filter",
                              "label=dlcbench.run=" + m["run_id"].get<std::string>()});
    EXPECT_EQ(ps.out, "");
    EXPECT_FALSE(capture_output({"docker", "image", "inspect",
                                 m["environments"]["docker"]["image_run_tag"].get<std::string>()})
                     .result.ok());
  }
  EXPECT_NE(manifests[0]["environments"]["docker"]["image_run_tag"],
            manifests[1]["environments"]["docker"]["image_run_tag"]);
  // An image one of them imported goes with the last; one kept from before stays.
  if (removed_at_end) {
    const std::string image = manifests[0]["environments"]["docker"]["image"];
    EXPECT_FALSE(capture_output({"docker", "image", "inspect", image}).result.ok()) << image << " remains";
  }
}

TEST(Docker, ThePapersFourNetworksRunInBothEnvironments) {
  require_docker();
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "fcn5,alexnet,resnet56,lstm", "--envs", "host,docker",
                                  "--runs", "1", "--iters", "2", "--warmup", "0", "--batch", "4", "--data",
                                  "synthetic", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::map<std::string, int> measured;  // "case env" -> samples
  std::map<std::string, std::int64_t> parameters;
  for (const auto& rec : testing::read_records(testing::only_run_dir(out.path()))) {
    const std::string key = rec.value("case", "") + " " + rec.value("env", "");
    if (rec.value("type", "") == "sample") measured[key] += 1;
    if (rec.value("type", "") == "fingerprint") parameters[key] = rec["model"]["parameters"].get<std::int64_t>();
  }
  const std::map<std::string, std::int64_t> expected = {
      {"fcn5", 14205962}, {"alexnet", 85098}, {"resnet56", 853018}, {"lstm", 6182672}};
  for (const auto& [workload, params] : expected)
    for (const char* env : {"host", "docker"}) {
      const std::string key = workload + "/torch/cpu/b4 " + env;
      EXPECT_EQ(measured[key], 2) << key;
      EXPECT_EQ(parameters[key], params) << key;
    }
}

TEST(Docker, DataFolderIsMountedReadOnlyIntoTheContainer) {
  require_docker();
  testing::TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 32);
  // Batches from memory, and read from the mounted files on every step.
  for (const std::string input : {"memory", "disk"}) {
    const auto out = dir / ("res-" + input);
    auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--envs", "host,docker", "--runs", "1", "--iters", "2", "--warmup", "0",
                                    "--batch", "8", "--input", input, "--data", dir.path().string(), "--out",
                                    out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto by_env = testing::summarize_by_env(testing::read_records(testing::only_run_dir(out)));
    ASSERT_EQ(by_env.at("docker").fingerprints.size(), 1u);
    EXPECT_EQ(by_env.at("docker").measured, 2) << input;
    const json& fp = by_env.at("docker").fingerprints[0];
    EXPECT_EQ(fp["dataset"]["name"], "mnist");
    EXPECT_EQ(fp["dataset"]["source"], "/data/mnist");
    EXPECT_EQ(fp["dataset"]["examples"], 32);
    EXPECT_EQ(fp["case_spec"]["input"], input);
  }
}

// Pins this test process (and so the dlcbench it starts) to one CPU for the
// scope; containers started by the Docker daemon do not inherit it.
class PinnedToCpu0 {
 public:
  PinnedToCpu0() {
    sched_getaffinity(0, sizeof saved_, &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
  }
  ~PinnedToCpu0() { sched_setaffinity(0, sizeof saved_, &saved_); }
  static int available() {
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    return CPU_COUNT(&set);
  }

 private:
  cpu_set_t saved_;
};

TEST(Docker, CpusNobodyAskedToDifferStopTheRunBeforeAnythingIsMeasured) {
  require_docker();
  if (PinnedToCpu0::available() < 2) GTEST_SKIP() << "needs two CPUs to make the affinities differ";
  testing::TempDir out;
  auto args = [&](const std::string& envs, const std::string& name) {
    return std::vector<std::string>{"run", "--verbose", "--workloads", "fcn5", "--envs", envs, "--runs", "1", "--iters", "1", "--warmup", "0",
                                    "--batch", "4", "--data", "synthetic", "--out", (out / name).string()};
  };
  PinnedToCpu0 pinned;
  // The host worker inherits CPU 0 only; the daemon's container gets all.
  auto stopped = testing::run_dlcbench(args("host,docker", "stopped"));
  EXPECT_EQ(stopped.exit_code, 3) << stopped.err;
  EXPECT_THAT(stopped.err, HasSubstr("nothing was measured"));
  EXPECT_THAT(stopped.err, HasSubstr("cpu/affinity: host has 0, docker has 0-"));
  EXPECT_THAT(stopped.err, HasSubstr("fix: give both the same CPUs"));
  for (const auto& r : testing::read_records(testing::only_run_dir(out / "stopped")))
    EXPECT_NE(r.value("type", ""), "sample") << r;

  // Asked for: the container gets CPU 0 too, and the run goes ahead.
  auto pinned_both = testing::run_dlcbench(args("host,docker:cpuset=0", "pinned"));
  EXPECT_EQ(pinned_both.exit_code, 0) << pinned_both.err;
  EXPECT_THAT(pinned_both.out, HasSubstr("docker:cpuset=0 vs host: ratio"));

  // Allowed: measured, and the report says it is not like for like.
  auto a = args("host,docker", "allowed");
  a.push_back("--allow-mismatch");
  auto allowed = testing::run_dlcbench(a);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_THAT(allowed.out, HasSubstr("MISMATCH ALLOWED"));
  EXPECT_THAT(allowed.out, HasSubstr("cpu/affinity: host has 0"));
}

TEST(Docker, OptionsBecomeFlagsAndShowInTheFingerprint) {
  require_docker();
  testing::TempDir out;
  const std::string env = "docker:cpus=1,memory=2g,shm=256m,seccomp=unconfined";
  auto r = testing::run_dlcbench({"run", "--verbose", "--workloads", "fcn5", "--envs", "host," + env, "--runs", "1", "--iters",
                                  "1", "--warmup", "0", "--batch", "4", "--data", "synthetic", "--out",
                                  out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto run_dir = testing::only_run_dir(out.path());
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  const std::string command = manifest["environments"][env]["command"].dump();
  for (const char* flag : {"\"--cpus\",\"1\"", "\"--memory\",\"2147483648\"", "\"--shm-size\",\"268435456\"",
                           "\"seccomp=unconfined\"", "\"--network\",\"none\""})
    EXPECT_THAT(command, HasSubstr(flag));
  const auto by_env = testing::summarize_by_env(testing::read_records(run_dir));
  ASSERT_EQ(by_env.at(env).fingerprints.size(), 1u);
  const json& fp = by_env.at(env).fingerprints[0];
  EXPECT_DOUBLE_EQ(fp["cgroup"]["cpu_quota"].get<double>(), 1.0);
  EXPECT_EQ(fp["cgroup"]["memory_limit_bytes"].get<std::uint64_t>(), 2ull << 30);
  EXPECT_THAT(r.out, HasSubstr("cgroup/cpu_quota: host has none, " + env + " has 1.0 (asked for)"));
}

// Issue 20: gVisor as Docker's runtime (docker:runtime=runsc), registered
// with dockerd; scripts/with-docker.sh registers it with the dockerd it starts.
TEST(Docker, GvisorAsDockersRuntimeTrainsAndStartsTheSameBits) {
  require_docker();
  REQUIRE_RUNTIME("runsc");
  REQUIRE_RUNTIME("docker:runtime=runsc");
  testing::TempDir out;
  const std::string env = "docker:runtime=runsc";
  auto r = testing::run_dlcbench({"run", "--verbose", "--workloads", "fcn5,startup", "--envs", "host," + env, "--runs", "2",
                                  "--iters", "3", "--warmup", "1", "--batch", "8", "--starts", "2", "--data",
                                  "synthetic", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr(env + " vs host"));
  const auto run_dir = testing::only_run_dir(out.path());
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "completed");
  EXPECT_EQ(manifest["failed_launches"], 0);
  const json& described = manifest["environments"][env];
  EXPECT_EQ(described["runtime"]["name"], "runsc");
  EXPECT_EQ(described["runtime"]["asked"], true);
  EXPECT_EQ(described["options"]["runtime"], "runsc");
  EXPECT_EQ(described["gpu"]["method"], "none");
  const std::string command = described["command"].dump();
  EXPECT_THAT(command, HasSubstr("\"--runtime\",\"runsc\""));
  EXPECT_THAT(command, HasSubstr("\"--network\",\"none\""));

  std::map<std::string, int> trained, started;  // measured samples per env
  for (const auto& rec : testing::read_records(run_dir))
    if (rec.value("type", "") == "sample" && rec.value("phase", "") == "measured")
      ++(rec.value("case", "").rfind("fcn5", 0) == 0 ? trained : started)[rec.value("env", "")];
  for (const std::string e : {"host", "docker:runtime=runsc"}) {
    EXPECT_EQ(trained[e], 6) << e;
    EXPECT_EQ(started[e], 4) << e;
  }
  const auto by_env = testing::summarize_by_env(testing::read_records(run_dir));
  ASSERT_FALSE(by_env.at(env).fingerprints.empty());
  const json& host = by_env.at("host").fingerprints[0];
  const json& inside = by_env.at(env).fingerprints[0];
  EXPECT_TRUE(inside["container"]["in_container"].get<bool>());
  EXPECT_THAT(inside["container"]["detected_by"].get<std::string>(), HasSubstr(".dockerenv"));
  EXPECT_NE(inside["kernel"], host["kernel"]) << "gVisor reports a kernel of its own";
  EXPECT_EQ(inside["binary_sha256"], host["binary_sha256"]);
  EXPECT_EQ(inside["backend"]["threads"], host["backend"]["threads"]);
  auto ps = capture_output({"docker", "ps", "--all", "--quiet", "--filter",
                            "label=dlcbench.run=" + manifest["run_id"].get<std::string>()});
  EXPECT_TRUE(ps.result.ok());
  EXPECT_EQ(ps.out, "");

  // A runsc registered with --network=none gives a loopback-only network
  // whatever docker's --network says: another network is refused up front.
  const json args = described["runtime"].value("args", json::array());
  if (std::find(args.begin(), args.end(), "--network=none") != args.end()) {
    auto host_net = testing::run_dlcbench({"run", "--workloads", "fcn5", "--envs", "host," + env + ",network=host",
                                           "--runs", "1", "--iters", "1", "--warmup", "0", "--batch", "8", "--data",
                                           "synthetic", "--out", (out / "host-net").string()});
    // Known before the first launch: bad input, before anything is written.
    EXPECT_EQ(host_net.exit_code, 2) << host_net.err;
    EXPECT_THAT(host_net.err, HasSubstr("dockerd runs runsc with --network=none"));
    EXPECT_FALSE(std::filesystem::exists(out / "host-net"));
  }
}

TEST(Docker, AMissingImageIsAClearErrorAndWithKeepGoingTheHostStillRuns) {
  require_docker();
  testing::TempDir out;
  std::vector<std::string> args = {"run", "--workloads", "fcn5", "--envs", "host,docker:image=dlcbench-no-such-image:1",
                                   "--runs", "1", "--iters", "1", "--warmup", "0", "--batch", "8", "--data",
                                   "synthetic", "--out", out.path().string()};
  auto refused = testing::run_dlcbench(args);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("image dlcbench-no-such-image:1 is not in the local Docker image store"));
  EXPECT_TRUE(std::filesystem::is_empty(out.path()));
  args.push_back("--keep-going");
  auto r = testing::run_dlcbench(args);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("image dlcbench-no-such-image:1 is not in the local Docker image store"));
  const auto by_env = testing::summarize_by_env(testing::read_records(testing::only_run_dir(out.path())));
  EXPECT_EQ(by_env.at("host").measured, 1);
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

// The loader's batches in shared memory: a container whose /dev/shm is too
// small loses a worker to SIGBUS, named with the fix; a larger one, or the
// host's (ipc=host), loads like the host. Nothing is left in /dev/shm.
TEST(Docker, TheLoaderFailsInASmallShmWithTheFixAndRunsWithShmOrIpcHost) {
  require_docker();
  testing::TempDir data, out;
  testing::write_mnist_split(data / "mnist", "train", 600);
  testing::write_mnist_split(data / "mnist", "t10k", 100);
  auto loader_segments = [] {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
      if (e.path().filename().string().rfind("dlcbench-loader-", 0) == 0) names.insert(e.path().filename().string());
    return names;
  };
  const std::set<std::string> before = loader_segments();
  // 4 batches of 64 x 112 x 112 floats in flight: 12.3 MiB, beyond 8 MiB.
  auto r = testing::run_dlcbench({"run", "--workloads", "loader/mnist:workers=2,prefetch=2,batch=64,edge=112", "--envs",
                                  "host,docker:shm=8m,docker:shm=256m,docker:ipc=host", "--runs", "1", "--iters",
                                  "2", "--warmup", "0", "--data", data.path().string(), "--out",
                                  out.path().string()});
  EXPECT_THAT(r.out, HasSubstr("docker:shm=8m: 1 failed launch"));
  EXPECT_THAT(r.out, HasSubstr("killed by signal 7 (SIGBUS: Bus error)"));
  EXPECT_THAT(r.out, HasSubstr("/dev/shm holds 8.0 MiB here"));
  EXPECT_THAT(r.out, HasSubstr("shm=SIZE (e.g. docker:shm=1g), or the host's with ipc=host"));

  const auto run_dir = testing::only_run_dir(out.path());
  const auto by_env = testing::summarize_by_env(testing::read_records(run_dir));
  for (const char* env : {"host", "docker:shm=256m", "docker:ipc=host"}) {
    ASSERT_TRUE(by_env.count(env)) << env << "\n" << r.out << r.err;
    EXPECT_EQ(by_env.at(env).ok_launches, 1) << env << "\n" << r.out << r.err;
    EXPECT_EQ(by_env.at(env).measured, 2) << env;
    const json& fp = by_env.at(env).fingerprints.at(0);
    EXPECT_EQ(fp["micro"]["workers"], 2) << env;
    EXPECT_EQ(fp["micro"]["in_flight_bytes"], 4 * loader_batch_bytes("mnist", 64, 112)) << env;
  }
  EXPECT_EQ(by_env.at("docker:shm=256m").fingerprints.at(0)["micro"]["dev_shm_bytes"], 256 << 20);
  // The host's /dev/shm holds no batch of any of them (the host's and
  // ipc=host's loaders wrote there).
  EXPECT_EQ(loader_segments(), before);
}

// serve: the server in a container of docker's reached through a veth pair
// on the run's own bridge network, the host's and network=host's through
// the host's stack; every request timed, the quantiles compared, and the
// bridge network gone with the run.
TEST(Docker, AServerInDockerIsReachedThroughAVethAndItsQuantilesAreCompared) {
  require_docker();
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "serve:rate=100,requests=100", "--envs",
                                  "host,docker,docker:network=host", "--runs", "2", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("p99 latency in ms per run"));
  EXPECT_THAT(r.out, HasSubstr("docker: the median"));
  const auto run_dir = testing::only_run_dir(out.path());
  const auto records = testing::read_records(run_dir);
  std::map<std::string, std::set<std::string>> paths, addresses;
  std::map<std::string, int> measured;
  for (const auto& rec : records) {
    const std::string type = rec.value("type", ""), env = rec.value("env", "");
    if (type == "listening") {
      paths[env].insert(rec.value("path", ""));
      addresses[env].insert(rec.value("address", ""));
    }
    if (type == "sample" && rec.value("phase", "") == "measured") ++measured[env];
  }
  EXPECT_EQ(paths["host"], std::set<std::string>{"host"});
  EXPECT_EQ(paths["docker:network=host"], std::set<std::string>{"host"});
  EXPECT_EQ(paths["docker"], std::set<std::string>{"veth"});
  EXPECT_EQ(addresses["host"], std::set<std::string>{"127.0.0.1"});
  for (const auto& address : addresses["docker"]) EXPECT_NE(address.rfind("127.", 0), 0u) << address;
  for (const char* env : {"host", "docker", "docker:network=host"}) EXPECT_EQ(measured[env], 200) << env;

  const auto details = testing::run_dlcbench({"report", run_dir.string(), "--details"});
  EXPECT_THAT(details.out, HasSubstr("latency per quantile"));
  EXPECT_THAT(details.out, HasSubstr("p99.9"));
  const auto report = testing::run_dlcbench({"report", run_dir.string(), "--format", "json"});
  const json j = json::parse(report.out);
  const json& latency = j["cases"][0]["latency"];
  EXPECT_EQ(latency["envs"].size(), 3u);
  EXPECT_EQ(latency["comparisons"].size(), 8u);  // 2 environments x 4 quantiles
  // The run's bridge network went with it.
  auto networks = capture_output({"docker", "network", "ls", "--format", "{{.Name}}"}, 60);
  EXPECT_THAT(networks.out, Not(HasSubstr("dlcbench-serve-")));
}

}  // namespace
}  // namespace dlcbench
