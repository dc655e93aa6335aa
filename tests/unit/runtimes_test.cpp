// Environment options, the --envs list and the OCI config dlcbench writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/comparability.h"
#include "core/units.h"
#include "model/container_options.h"
#include "runtimes/environment.h"
#include "runtimes/oci_bundle.h"
#include "runtimes/rootless.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::error_of;
using json = nlohmann::json;

TEST(EnvironmentRequest, ParsesNameAndOptions) {
  auto r = parse_environment_request("docker:image=mine:1");
  EXPECT_EQ(r.name, "docker");
  EXPECT_EQ(r.options.at("image"), "mine:1");
  EXPECT_EQ(parse_environment_request("host").name, "host");
  auto limited = parse_environment_request("docker:cpuset=0-3,6,memory=4g");
  EXPECT_EQ(limited.options.at("cpuset"), "0-3,6");
  EXPECT_EQ(limited.options.at("memory"), "4g");
}

TEST(EnvironmentRequest, UnknownEnvironmentOrOptionListsTheValidOnes) {
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("lxc"); }),
              HasSubstr("unknown environment 'lxc': valid environments are host, docker, podman, runc, crun, runsc"));
  const auto unknown = error_of<UsageError>([] { parse_environment_request("docker:cpu=1"); });
  EXPECT_THAT(unknown, HasSubstr("no option 'cpu': valid options are image, runtime, cpus, cpuset, memory, shm, ipc, pid, network, seccomp, scratch"));
  EXPECT_THAT(unknown, HasSubstr("cpus=N          CPU quota in CPUs"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runc:image=x"); }),
              HasSubstr("valid options are rootfs, cpus"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("host:cpus=1"); }), HasSubstr("valid options are none"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:image"); }), HasSubstr("not key=value"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:cpus=1,cpus=2"); }), HasSubstr("given twice"));
}

TEST(EnvironmentRequest, BadValuesSayWhatAValidOneLooksLike) {
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:cpus=lots"); }),
              HasSubstr("docker:cpus=lots is not valid: give a number of CPUs"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:cpus=0"); }), HasSubstr("between 0.01"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:memory=4q"); }),
              HasSubstr("give a size such as 512m"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:memory=1m"); }), HasSubstr("at least 6m"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:cpuset=3-1"); }),
              HasSubstr("give CPU numbers and ranges"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:network=wifi"); }),
              HasSubstr("use one of none, host, bridge"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runc:network=bridge"); }),
              HasSubstr("use one of none, host"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("podman:runtime=kata"); }),
              HasSubstr("use one of runc, crun"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:shm="); }), HasSubstr("give a value"));
}

TEST(EnvironmentRequest, GvisorAsAnOciRuntimeAndAsDockersRuntime) {
  // Issue 20: docker:runtime=runsc (a runtime registered with dockerd) and
  // runsc:platform=ptrace|kvm; podman keeps runc and crun.
  EXPECT_EQ(parse_container_options("docker", {{"runtime", "runsc"}}).runtime, "runsc");
  EXPECT_EQ(parse_container_options("docker", {{"runtime", "runc"}}).runtime, "runc");
  EXPECT_EQ(parse_environment_request("docker:runtime=runsc,cpus=1").options.at("runtime"), "runsc");
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("docker:runtime=crun"); }),
              HasSubstr("docker:runtime=crun is not valid: use one of runc, runsc"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("podman:runtime=runsc"); }),
              HasSubstr("use one of runc, crun"));
  EXPECT_EQ(parse_container_options("runsc", {{"platform", "kvm"}}).platform, "kvm");
  EXPECT_EQ(parse_container_options("runsc", {{"platform", "ptrace"}}).platform, "ptrace");
  EXPECT_EQ(parse_container_options("runsc", {}).platform, "");  // ptrace, the default
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runsc:platform=foo"); }),
              HasSubstr("runsc:platform=foo is not valid: use one of ptrace, kvm"));
  // No GPU passthrough in gVisor, and the platform is gVisor's alone.
  const auto gpus = error_of<UsageError>([] { parse_environment_request("runsc:gpus=nodes"); });
  EXPECT_THAT(gpus, HasSubstr("environment 'runsc' has no option 'gpus': valid options are rootfs, platform, file-access, overlay, cpus"));
  // gVisor's kernel keeps its own PID and IPC namespaces.
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runsc:pid=host"); }), HasSubstr("no option 'pid'"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runsc:file-access=loose"); }),
              HasSubstr("use one of exclusive, shared"));
  EXPECT_THAT(gpus, HasSubstr("platform=NAME   gVisor's platform"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runc:platform=kvm"); }),
              HasSubstr("no option 'platform'"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runsc:runtime=runc"); }),
              HasSubstr("no option 'runtime'"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runsc:network=bridge"); }),
              HasSubstr("use one of none, host"));
  // runsc is a name the --envs list splits at.
  std::vector<std::string> texts;
  for (const auto& r : parse_environment_list("host,runsc:platform=ptrace,cpus=1,docker:runtime=runsc"))
    texts.push_back(r.text);
  EXPECT_THAT(texts, ElementsAre("host", "runsc:platform=ptrace,cpus=1", "docker:runtime=runsc"));
  EXPECT_THAT(environment_names(), ::testing::Contains("runsc"));
}

TEST(EnvironmentList, CommasSeparateEnvironmentsOnlyBeforeAKnownName) {
  auto list = parse_environment_list("host,docker:cpuset=0-3,6,memory=4g,shm=1g,docker,runc:cpus=0.5,crun,podman");
  std::vector<std::string> texts;
  for (const auto& r : list) texts.push_back(r.text);
  EXPECT_THAT(texts, ElementsAre("host", "docker:cpuset=0-3,6,memory=4g,shm=1g", "docker", "runc:cpus=0.5", "crun",
                                 "podman"));
  EXPECT_EQ(list[1].options.at("cpuset"), "0-3,6");
  EXPECT_EQ(list[1].options.at("shm"), "1g");
  std::vector<std::string> repeated;
  for (const auto& r : parse_environment_list("host,docker,host,host")) repeated.push_back(r.text);
  EXPECT_THAT(repeated, ElementsAre("host", "docker", "host#2", "host#3"));
  EXPECT_EQ(parse_environment_request("docker:cpus=1#2").options.at("cpus"), "1");
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_list("host#2"); }), HasSubstr("labels repeats"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_list("host,dockr:cpus=1"); }),
              HasSubstr("unknown environment 'dockr'"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_list("host,7"); }), HasSubstr("unknown environment '7'"));
}

TEST(ContainerOptions, SizesAndCpuLists) {
  EXPECT_EQ(parse_byte_size("4g"), 4ull << 30);
  EXPECT_EQ(parse_byte_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("1.5g"), 3ull << 29);
  EXPECT_EQ(parse_byte_size("2gb"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("1048576"), 1048576u);
  EXPECT_FALSE(parse_byte_size("g"));
  EXPECT_FALSE(parse_byte_size("-1g"));
  EXPECT_FALSE(parse_byte_size("4x"));
  EXPECT_EQ(parse_cpu_list("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(parse_cpu_list("2,1,2"), (std::vector<int>{1, 2}));
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("1,"));
  EXPECT_FALSE(parse_cpu_list("a"));
  EXPECT_FALSE(parse_cpu_list("3-1"));
}

TEST(ContainerOptions, LimitsAreTheFieldsTheyChange) {
  EXPECT_THAT(fields_changed_by({{"cpus", "1"}, {"memory", "4g"}}),
              ElementsAre("/cgroup/cpu_quota", "/cgroup/memory_limit_bytes"));
  EXPECT_THAT(fields_changed_by({{"cpuset", "0"}}), ElementsAre("/cpu/affinity", "/cpu/affinity_count",
                                                                  "/blas/threads", "/backend/threads/intra_op"));
  EXPECT_TRUE(fields_changed_by({{"image", "x"}}).empty());
  // Namespaces shared with the host show as the host's namespace.
  EXPECT_THAT(fields_changed_by({{"network", "host"}, {"pid", "host"}}),
              ElementsAre("/isolation/pid_namespace", "/isolation/net_namespace"));
  EXPECT_THAT(fields_changed_by({{"scratch", "tmpfs"}}), ElementsAre("/isolation/scratch_fs"));
  // Isolation asked for: shown as asked, not as a possible cause nobody chose.
  EXPECT_THAT(fields_changed_by({{"shm", "1g"}}), ElementsAre("/isolation/shm_bytes"));
  EXPECT_THAT(fields_changed_by({{"seccomp", "unconfined"}}),
              ElementsAre("/isolation/seccomp", "/isolation/speculation"));
}

TEST(ContainerOptions, ACpusetsThreadCountFollowsFromIt) {
  // Issue 18: `--envs host,runc:cpuset=0 --threads 2` stopped with "blas/threads:
  // host has 2, runc:cpuset=0 has 1 (not asked for)": OpenBLAS takes no more
  // threads than CPUs. That follows from the cpuset, so it is asked for.
  const nlohmann::json host = {{"blas", {{"threads", 2}}}, {"cpu", {{"affinity", "0-1"}, {"affinity_count", 2}}}};
  const nlohmann::json pinned = {{"blas", {{"threads", 1}}}, {"cpu", {{"affinity", "0"}, {"affinity_count", 1}}}};
  const auto mismatches = compare_fingerprints(host, pinned, fields_changed_by({{"cpuset", "0"}}));
  ASSERT_EQ(mismatches.size(), 3u);
  for (const auto& m : mismatches) EXPECT_TRUE(m.requested) << m.field;
  EXPECT_FALSE(stops_comparison(mismatches));
  // Without the option the same difference stops the comparison.
  EXPECT_TRUE(stops_comparison(compare_fingerprints(host, pinned)));
}

TEST(Comparability, DifferentDataFilesStopTheComparison) {
  // Issue 18: the data set's sha256 is in the fingerprint and compared like the rest.
  const nlohmann::json a = {{"dataset", {{"name", "mnist"}, {"sha256", "aa"}}}};
  const nlohmann::json b = {{"dataset", {{"name", "mnist"}, {"sha256", "bb"}}}};
  const auto mismatches = compare_fingerprints(a, b);
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_EQ(mismatches[0].field, "dataset/sha256");
  EXPECT_TRUE(stops_comparison(mismatches));
  EXPECT_THAT(mismatches[0].fix, HasSubstr("data fetch --force"));
}

TEST(ContainerOptions, ValuesBeyondTheMachineAreRefused) {
  // Issue 18: docker:cpus=99 passed validation on 2 CPUs, then Docker refused every launch.
  const std::vector<int> two = {0, 1};
  EXPECT_THAT(error_of<UsageError>([&] { check_options_fit_machine("docker", parse_container_options("docker", {{"cpus", "99"}}), two); }),
              HasSubstr("this machine has 2 CPUs online; give at most cpus=2"));
  EXPECT_THAT(error_of<UsageError>([&] { check_options_fit_machine("runc", parse_container_options("runc", {{"cpuset", "0,5"}}), two); }),
              HasSubstr("CPU 5 is not online"));
  EXPECT_NO_THROW(check_options_fit_machine("docker", parse_container_options("docker", {{"cpus", "2"}, {"cpuset", "0-1"}}), two));
}

OciBundleRequest bundle_request(const std::map<std::string, std::string>& options = {}) {
  OciBundleRequest r;
  r.process.args = {"/opt/dlcbench/bin/dlcbench", "worker"};
  r.process.env = {{"OMP_NUM_THREADS", "2"}};
  r.rootfs = "/tmp/rootfs";
  r.data = "/srv/data";
  r.cgroups_path = "/dlcbench-x";
  r.container_name = "runc";
  r.options = parse_container_options("runc", options);
  return r;
}

bool has_namespace(const json& config, const std::string& type) {
  for (const auto& n : config["linux"]["namespaces"])
    if (n["type"] == type) return true;
  return false;
}

const json* mount_at(const json& config, const std::string& destination) {
  for (const auto& m : config["mounts"])
    if (m["destination"] == destination) return &m;
  return nullptr;
}

TEST(OciConfig, DefaultsAreUnprivilegedWithAReadOnlyRootAndData) {
  const json c = oci_config(bundle_request());
  EXPECT_EQ(c["process"]["args"], json({"/opt/dlcbench/bin/dlcbench", "worker"}));
  EXPECT_THAT(c["process"]["env"].dump(), HasSubstr("OMP_NUM_THREADS=2"));
  EXPECT_THAT(c["process"]["env"].dump(), HasSubstr("container=runc"));
  EXPECT_TRUE(c["process"]["noNewPrivileges"].get<bool>());
  EXPECT_EQ(c["process"]["capabilities"]["bounding"], json({"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"}));
  EXPECT_EQ(c["root"]["path"], "/tmp/rootfs");
  EXPECT_TRUE(c["root"]["readonly"].get<bool>());
  for (const char* ns : {"pid", "network", "ipc", "uts", "mount"}) EXPECT_TRUE(has_namespace(c, ns)) << ns;
  const json* data = mount_at(c, "/data");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["source"], "/srv/data");
  EXPECT_THAT((*data)["options"].dump(), HasSubstr("\"ro\""));
  const json* shm = mount_at(c, "/dev/shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_THAT((*shm)["options"].dump(), HasSubstr("size=67108864"));
  EXPECT_FALSE(c["linux"]["resources"].contains("cpu"));
  EXPECT_FALSE(c["linux"]["resources"].contains("memory"));
  EXPECT_EQ(c["linux"]["cgroupsPath"], "/dlcbench-x");
  EXPECT_THAT(c["linux"]["maskedPaths"].dump(), HasSubstr("/proc/kcore"));
}

TEST(OciConfig, OptionsBecomeLimitsAndNamespaces) {
  const json c = oci_config(
      bundle_request({{"cpus", "1.5"}, {"cpuset", "0-1"}, {"memory", "512m"}, {"shm", "1g"}, {"network", "host"}, {"ipc", "host"}}));
  EXPECT_EQ(c["linux"]["resources"]["cpu"]["quota"], 150000);
  EXPECT_EQ(c["linux"]["resources"]["cpu"]["period"], 100000);
  EXPECT_EQ(c["linux"]["resources"]["cpu"]["cpus"], "0-1");
  EXPECT_EQ(c["linux"]["resources"]["memory"]["limit"], 512ull << 20);
  EXPECT_FALSE(has_namespace(c, "network"));
  EXPECT_FALSE(has_namespace(c, "ipc"));
  const json* shm = mount_at(c, "/dev/shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ((*shm)["type"], "bind");
}

TEST(OciConfig, SyntheticDataMountsNothing) {
  auto r = bundle_request();
  r.data.clear();
  EXPECT_EQ(mount_at(oci_config(r), "/data"), nullptr);
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

TEST(OciConfig, GpuPassthroughCreatesAllowsAndBindsTheDriverReadOnly) {
  GpuPassthrough gpu;
  gpu.devices = {{"/dev/nvidia0", 195, 0}, {"/dev/nvidiactl", 195, 255}, {"/dev/nvidia-uvm", 509, 0}};
  gpu.libraries = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"};
  gpu.library_dir = "/usr/lib/x86_64-linux-gnu";
  auto r = bundle_request();
  const json plain = oci_config(r);
  EXPECT_TRUE(plain["linux"]["devices"].empty());
  EXPECT_EQ(plain["linux"]["resources"]["devices"].size(), 1u);  // deny all, nothing allowed
  r.gpu = &gpu;
  const json c = oci_config(r);
  ASSERT_EQ(c["linux"]["devices"].size(), 3u);
  EXPECT_EQ(c["linux"]["devices"][1]["path"], "/dev/nvidiactl");
  EXPECT_EQ(c["linux"]["devices"][1]["type"], "c");
  EXPECT_EQ(c["linux"]["devices"][1]["minor"], 255);
  const json& rules = c["linux"]["resources"]["devices"];
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_FALSE(rules[0]["allow"].get<bool>());  // the default deny stays first
  EXPECT_TRUE(rules[3]["allow"].get<bool>());
  EXPECT_EQ(rules[3]["major"], 509);
  EXPECT_EQ(rules[3]["access"], "rwm");
  const json* libcuda = mount_at(c, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  ASSERT_NE(libcuda, nullptr);
  EXPECT_EQ((*libcuda)["source"], "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_THAT((*libcuda)["options"].dump(), HasSubstr("\"ro\""));
  EXPECT_THAT(c["process"]["env"].dump(), HasSubstr("LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu"));
  // Still unprivileged: the same capabilities as without the GPU.
  EXPECT_EQ(c["process"]["capabilities"], plain["process"]["capabilities"]);
  EXPECT_TRUE(c["process"]["noNewPrivileges"].get<bool>());
}

TEST(ContainerOptions, RootlessNamesAUserOfPodmanOrDockerAndChangesTheUserNamespace) {
  EXPECT_EQ(parse_container_options("podman", {{"rootless", "dlcbench-rootless"}}).rootless_user, "dlcbench-rootless");
  EXPECT_THAT(testing::error_of<UsageError>([] { parse_container_options("podman", {{"rootless", "-u0"}}); }),
              ::testing::HasSubstr("give a user name"));
  EXPECT_THAT(testing::error_of<UsageError>([] { parse_container_options("podman", {{"rootless", "a b"}}); }),
              ::testing::HasSubstr("give a user name"));
  EXPECT_THAT(fields_changed_by({{"rootless", "x"}}), ::testing::Contains("/isolation/user_namespace"));
  EXPECT_THAT(option_keys("podman"), ::testing::Contains("rootless"));
  EXPECT_THAT(option_keys("docker"), ::testing::Contains("rootless"));
  EXPECT_THAT(option_keys("runc"), ::testing::Not(::testing::Contains("rootless")));
}

TEST(Rootless, AUserThatDoesNotExistIsNamedWithTheScriptThatMakesOne) {
  const auto problems = rootless_problems("dlcbench-no-such-user-xyz");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], ::testing::HasSubstr("no user dlcbench-no-such-user-xyz"));
  EXPECT_THAT(problems[0], ::testing::HasSubstr("scripts/rootless-user.sh"));
  EXPECT_THAT(testing::error_of<EnvironmentUnavailable>([] { rootless_user("dlcbench-no-such-user-xyz"); }),
              ::testing::HasSubstr("podman:rootless=dlcbench-no-such-user-xyz: no user"));
  EXPECT_THAT(testing::error_of<EnvironmentUnavailable>([] { rootless_user("dlcbench-no-such-user-xyz", "docker"); }),
              ::testing::HasSubstr("docker:rootless=dlcbench-no-such-user-xyz: no user"));
  EXPECT_FALSE(rootless_docker_running("dlcbench-no-such-user-xyz"));
}

TEST(Rootless, AUserWithoutSubordinateIdsIsToldHowToAddThem) {
  // Every machine has a user "nobody" and none gives it subordinate IDs.
  const auto problems = rootless_problems("nobody");
  EXPECT_THAT(problems, ::testing::Contains(::testing::HasSubstr("/etc/subuid gives nobody no subordinate IDs")));
  EXPECT_THAT(problems, ::testing::Contains(::testing::HasSubstr("usermod --add-subuids")));
}

TEST(ContainerOptions, GpusTakesTheModesEachRuntimeSupports) {
  EXPECT_EQ(parse_container_options("docker", {}).gpus, "auto");
  EXPECT_EQ(parse_container_options("docker", {{"gpus", "all"}}).gpus, "all");
  EXPECT_EQ(parse_container_options("runc", {{"gpus", "nodes"}}).gpus, "nodes");
  EXPECT_THAT(error_of<UsageError>([] { parse_container_options("runc", {{"gpus", "all"}}); }),
              HasSubstr("runc:gpus=all is not valid: use one of auto, nodes, none"));
  EXPECT_THAT(error_of<UsageError>([] { parse_container_options("docker", {{"gpus", "2"}}); }),
              HasSubstr("use one of auto, all, nodes, none"));
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

TEST(ThreadsBeyondCpus, AQuotaOrCpusetSmallerThanThePoolIsNamedWithTheFix) {
  ContainerOptions quota;
  quota.cpus = 1;
  const std::string q = threads_beyond_cpus("docker:cpus=1", quota, 2);
  EXPECT_THAT(q, ::testing::HasSubstr("docker:cpus=1 has a CPU quota of 1 CPU and every worker runs 2 compute threads"));
  EXPECT_THAT(q, ::testing::HasSubstr("throttles"));
  EXPECT_THAT(q, ::testing::HasSubstr("--threads 1"));
  EXPECT_EQ(threads_beyond_cpus("docker:cpus=1", quota, 1), "");
  quota.cpus = 1.5;  // 2 threads may use 2 CPUs part of the time: not flagged
  EXPECT_EQ(threads_beyond_cpus("docker:cpus=1.5", quota, 2), "");
  quota.cpus = 0.5;
  EXPECT_THAT(threads_beyond_cpus("runc:cpus=0.5", quota, 2), ::testing::HasSubstr("0.5 CPUs"));

  ContainerOptions cpuset;
  cpuset.cpuset = "0";
  const std::string c = threads_beyond_cpus("runc:cpuset=0", cpuset, 2);
  EXPECT_THAT(c, ::testing::HasSubstr("may run on 1 CPU (cpuset=0) and every worker runs 2 compute threads"));
  EXPECT_THAT(c, ::testing::HasSubstr("--threads 1"));
  cpuset.cpuset = "0-1";
  EXPECT_EQ(threads_beyond_cpus("runc:cpuset=0-1", cpuset, 2), "");
  EXPECT_EQ(threads_beyond_cpus("host", ContainerOptions{}, 64), "");
}

}  // namespace
}  // namespace dlcbench
