// The micro-benchmarks through `dlcbench run`, on the host and in every
// runtime that can start here: each case measured everywhere, the I/O on the
// file system it was asked for, nothing left behind.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// The environments that can run here; under DLCBENCH_REQUIRE_RUNTIMES=1
// every one must.
std::vector<std::string> available_environments() {
  std::vector<std::string> envs = {"host"};
  for (const char* runtime : {"docker", "podman", "runc", "crun", "runsc"}) {
    const std::string problem = testing::runtime_problem(runtime);
    if (problem.empty()) envs.push_back(runtime);
    else if (testing::runtimes_required()) ADD_FAILURE() << runtime << " cannot start containers: " << problem;
  }
  return envs;
}

std::vector<std::string> files_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.push_back(e.path().filename().string());
  return names;
}

TEST(Micro, EveryMicroBenchmarkRunsInEveryEnvironmentOnTheFileSystemAskedFor) {
  const auto envs = available_environments();
  testing::TempDir out, volume;
  std::filesystem::permissions(volume.path(), std::filesystem::perms::all);  // any container user may write
  const std::string envs_list = fmt::format("{}", fmt::join(envs, ","));
  auto r = testing::run_dlcbench(
      {"run", "--workloads",
       "gemm:n=192,hpl:n=160,hpcg:n=16,stream/triad:n=200000,io-seq:size=4m,block=1m,mode=direct,io-lat:size=1m",
       "--path",
       "rootfs,tmpfs," + volume.path().string(), "--envs", envs_list, "--runs", "1", "--warmup", "0", "--iters", "2",
       "--threads", "2", "--out", out.path().string()},
      {}, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const char* unit : {"GFLOP/s", "GB/s", "MB/s", "ms"}) EXPECT_THAT(r.out, HasSubstr(unit));

  const auto run_dir = testing::only_run_dir(out.path());
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  const auto records = testing::read_records(run_dir);
  // 2 gemm + hpl + hpcg + stream + 3 paths x (2 io-seq + 1 io-lat).
  ASSERT_EQ(manifest["plan"]["cases"].size(), 14u);

  std::map<std::pair<std::string, std::string>, int> measured;         // case, env -> samples
  std::map<std::pair<std::string, std::string>, std::string> fs_type;  // case, env -> file system
  for (const auto& rec : records) {
    if (!rec.contains("case")) continue;
    const auto key = std::make_pair(rec["case"].get<std::string>(), rec["env"].get<std::string>());
    if (rec["type"] == "sample" && rec["phase"] == "measured") {
      ++measured[key];
      EXPECT_GT(rec["seconds"].get<double>(), 0) << rec;
      EXPECT_GT(rec["work"].get<double>(), 0) << rec;
    }
    if (rec["type"] == "fingerprint" && rec.contains("micro") && rec["micro"].contains("fs_type"))
      fs_type[key] = rec["micro"]["fs_type"];
    if (rec["type"] == "launch") {
      EXPECT_TRUE(rec["ok"].get<bool>()) << rec;
    }
  }
  for (const auto& c : manifest["plan"]["cases"])
    for (const auto& env : envs)
      EXPECT_EQ((measured[{c["id"].get<std::string>(), env}]), 2) << c["id"] << " in " << env;

  const std::string volume_id = "io-lat/bs4K/1M@" + volume.path().string();
  const std::string host_volume_fs = fs_type[{volume_id, "host"}];
  EXPECT_FALSE(host_volume_fs.empty());
  for (const auto& env : envs) {
    EXPECT_EQ((fs_type[{"io-lat/bs4K/1M@tmpfs", env}]), "tmpfs") << env;
    // A bind-mounted folder is the host's file system, seen from inside;
    // gVisor's gofer serves it to the sandbox over 9P.
    EXPECT_EQ((fs_type[{volume_id, env}]), env == "runsc" ? "9p" : host_volume_fs) << env;
  }
  // Docker and Podman write into the container's own layer.
  for (const auto& env : envs)
    if (env == "docker" || env == "podman") {
      EXPECT_EQ((fs_type[{"io-lat/bs4K/1M@rootfs", env}]), "overlay") << env;
    }
  // The scratch files went as soon as they were made.
  EXPECT_TRUE(files_in(volume.path()).empty());
}

// The real tools in the host and the given runtimes (those that can start
// here), their figures read. CI runs the runtimes in two tests, each with the
// host, so that ctest can run them side by side: one run of all of them took
// 321 s, the longest test of CI.
void expect_real_tools_run_and_figures_read(const std::set<std::string>& runtimes) {
  for (const char* tool : {"dd", "ioping", "fio", "hpcc"})
    if (!find_program(tool)) {
      if (testing::runtimes_required()) FAIL() << tool << " is not installed: scripts/install-deps.sh installs it";
      GTEST_SKIP() << tool << " is not installed";
    }
  std::vector<std::string> envs;
  for (const auto& env : available_environments())
    if (env == "host" || runtimes.contains(env)) envs.push_back(env);
  testing::TempDir out, volume;
  std::filesystem::permissions(volume.path(), std::filesystem::perms::all);
  auto r = testing::run_dlcbench(
      {"run", "--workloads", "dd:size=4m,block=1m,mode=direct,ioping:size=1m,fio/randread:size=2m,block=4k,mode=direct,hpcc/hpl:n=256",
       "--path", "rootfs," + volume.path().string(), "--envs", fmt::format("{}", fmt::join(envs, ",")), "--runs", "1",
       "--warmup", "0", "--iters", "2", "--out", out.path().string()},
      {}, 1200);
  // gVisor refuses dd's writing open of the scratch file dlcbench hands it
  // (/proc/self/fd/3 with O_DIRECT: EINVAL); its direct reads, and every
  // other tool, run. Those launches fail, and say why.
  auto gvisor_refuses = [](const std::string& case_id, const std::string& env) {
    return env == "runsc" && case_id.rfind("dd/write/direct", 0) == 0;
  };
  const bool gvisor = std::find(envs.begin(), envs.end(), "runsc") != envs.end();
  ASSERT_EQ(r.exit_code, gvisor ? 1 : 0) << r.err << r.out;
  const auto run_dir = testing::only_run_dir(out.path());
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  // 2 paths x (2 dd + ioping + fio) + hpcc.
  ASSERT_EQ(manifest["plan"]["cases"].size(), 9u);
  std::map<std::pair<std::string, std::string>, int> measured;
  std::map<std::pair<std::string, std::string>, json> described;
  for (const auto& rec : testing::read_records(run_dir)) {
    if (!rec.contains("case")) continue;
    const auto key = std::make_pair(rec["case"].get<std::string>(), rec["env"].get<std::string>());
    if (rec["type"] == "sample" && rec["phase"] == "measured") {
      ++measured[key];
      EXPECT_GT(rec["seconds"].get<double>(), 0) << rec;
      EXPECT_GT(rec["detail"]["tool_wall_seconds"].get<double>(), 0) << rec;
    }
    if (rec["type"] == "fingerprint" && rec.contains("micro")) described[key] = rec["micro"];
    if (rec["type"] == "launch") {
      EXPECT_EQ(rec["ok"].get<bool>(), !gvisor_refuses(key.first, key.second)) << rec;
      if (!rec["ok"].get<bool>()) {
        EXPECT_THAT(rec.value("stderr_tail", ""), HasSubstr("failed to open '/proc/self/fd/3': Invalid argument"));
      }
    }
  }
  for (const auto& c : manifest["plan"]["cases"])
    for (const auto& env : envs) {
      const auto key = std::make_pair(c["id"].get<std::string>(), env);
      if (gvisor_refuses(key.first, key.second)) continue;
      EXPECT_EQ(measured[key], 2) << key.first << " in " << env;
      EXPECT_FALSE(described[key].value("program", std::string()).empty()) << key.first << " in " << env;
    }
  // The tools ran on the file system asked for, as dlcbench's own do.
  const std::string volume_case = "ioping/bs4K/1M@" + volume.path().string();
  const std::string host_fs = described[{volume_case, "host"}].value("fs_type", std::string());
  EXPECT_FALSE(host_fs.empty());
  for (const auto& env : envs)
    EXPECT_EQ((described[{volume_case, env}].value("fs_type", std::string())), env == "runsc" ? "9p" : host_fs)
        << env;
  EXPECT_THAT(r.out, HasSubstr("hpcc/hpl/n256 (GFLOP/s)"));
  EXPECT_TRUE(files_in(volume.path()).empty());
}

TEST(Micro, TheRealToolsRunInDockerRuncAndRunscAndTheirFiguresAreRead) {
  expect_real_tools_run_and_figures_read({"docker", "runc", "runsc"});
}

TEST(Micro, TheRealToolsRunInPodmanAndCrunAndTheirFiguresAreRead) {
  expect_real_tools_run_and_figures_read({"podman", "crun"});
}

TEST(Micro, BadPathsAndSizesStopTheRunBeforeAnythingIsMeasured) {
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "io-seq", "--path", "/nonexistent/dlcbench", "--envs", "host",
                                  "--out", out.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--path /nonexistent/dlcbench: the folder does not exist"));
  r = testing::run_dlcbench({"run", "--workloads", "gemm/dgemm:n=2000000", "--envs", "host", "--out",
                             out.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("needs"));
  EXPECT_THAT(r.err, HasSubstr("of memory"));
  EXPECT_TRUE(files_in(out.path()).empty());
}

TEST(Micro, TheWorkerRefusesAPathItCannotWriteAndSaysWhy) {
  auto r = testing::run_dlcbench({"worker", "--workload", "io-seq", "--variant", "write", "--mode", "direct",
                                  "--size", "1048576", "--block", "4096", "--path", "/proc", "--iters", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"kind\":\"usage\""));
}

}  // namespace
}  // namespace dlcbench
