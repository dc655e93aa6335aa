// The counting launch (issue 39) checked against a known count: the
// system-call table makes exactly 1,000 getppid calls and 1,000
// sched_yield calls per operation, and the counters read from outside must
// say exactly that: on the host and in every runtime whose calls reach the
// host's kernel, through its tracepoint; under gVisor, whose calls never
// do, from runsc's own trace.
#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "../unit/test_files.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(CallCounting, AKnownNumberOfCallsPerOperationIsCountedExactlyInEveryEnvironment) {
  if (geteuid() != 0) GTEST_SKIP() << "counting system calls through the tracepoint needs root";
  std::string envs = "host";
  for (const char* runtime : {"docker", "runc", "runsc"}) {
    REQUIRE_RUNTIME(runtime);
    envs += fmt::format(",{}", runtime);
  }
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "syscall", "--envs", envs, "--runs", "1", "--warmup", "1",
                                  "--iters", "3", "--allow-mismatch", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("counting  syscall/table"));
  std::map<std::string, json> counted;
  for (const auto& rec : testing::read_records(testing::only_run_dir(out.path())))
    if (rec.value("type", "") == "call_counts") counted[rec.value("env", "")] = rec;
  for (const auto& env : {"host", "docker", "runc", "runsc"}) {
    if (envs.find(env) == std::string::npos) continue;
    ASSERT_TRUE(counted.count(env)) << env << ": no counting record";
    const json& rec = counted[env];
    ASSERT_FALSE(rec.contains("unavailable")) << env << ": " << rec;
    EXPECT_EQ(rec["round"], 0) << env;
    EXPECT_EQ(rec["batches"], 3) << env;
    // 3 operations, each 1,000 calls of each kind.
    EXPECT_EQ(rec["by_kind"]["getppid"], 3000) << env << ": " << rec;
    EXPECT_EQ(rec["by_kind"]["sched_yield"], 3000) << env << ": " << rec;
    // Calls from runsc's trace there; its stubs' page faults, as the host's
    // kernel takes them (each mmap's first touch among them), kept apart.
    const bool gvisor = std::string(env) == "runsc";
    EXPECT_THAT(rec.value("method", ""), HasSubstr(gvisor ? "runsc --strace" : "raw_syscalls:sys_enter"));
    const char* faults = gvisor ? "stub_page_faults" : "page_faults";
    ASSERT_TRUE(rec.contains(faults)) << env << ": " << rec;
    EXPECT_GE(rec[faults].get<double>(), 3000) << env;  // each mmap's first touch
    if (gvisor) {
      EXPECT_FALSE(rec.contains("page_faults")) << rec;
    }
  }
  // And the counting launch joins no statistics: the table's one measured
  // run per environment, each with its 3 operations.
  auto report = testing::run_dlcbench({"report", testing::only_run_dir(out.path()).string(), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json j = json::parse(report.out);
  for (const auto& e : j["cases"][0]["envs"]) EXPECT_EQ(e["runs"]["n"], 1) << e["env"];
}

// A user's command is counted over its whole run, under dlcbench-probe:
// the command makes exactly 5,000 getppid calls, and the count from outside
// (or from runsc's trace, between the probe's marks) must say so.
TEST(CallCounting, AUsersCommandIsCountedOverItsWholeRunInEveryEnvironment) {
  if (geteuid() != 0) GTEST_SKIP() << "counting system calls through the tracepoint needs root";
  namespace fs = std::filesystem;
  testing::TempDir dir;
  const fs::path rootfs = dir.path() / "rootfs", work = dir.path() / "work";
  for (const char* sub : {"proc", "sys", "dev", "tmp", "bin"}) fs::create_directories(rootfs / sub);
  fs::create_directories(work);
  fs::copy_file(COMMAND_STEPS, work / "steps");
  std::string envs = "host";
  for (const char* runtime : {"runc", "runsc"}) {
    REQUIRE_RUNTIME(runtime);
    envs += fmt::format(",{}:rootfs={}", runtime, rootfs.string());
  }
  auto r = testing::run_dlcbench({"run", "--workloads", "syscall", "--envs", envs, "--runs", "1", "--warmup", "1",
                                  "--iters", "2", "--allow-mismatch", "--workdir", work.string(), "--out",
                                  (dir.path() / "results").string(), "--", "./steps", "0", "--getppid", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("system calls per run"));
  std::map<std::string, json> counted;
  for (const auto& rec : testing::read_records(testing::only_run_dir(dir.path() / "results")))
    if (rec.value("type", "") == "call_counts" && rec.value("case", "").starts_with("cmd:"))
      counted[rec.value("env", "")] = rec;
  std::size_t checked = 0;
  for (const auto& [env, rec] : counted) {
    ASSERT_FALSE(rec.contains("unavailable")) << env << ": " << rec;
    EXPECT_EQ(rec["batches"], 1) << env;
    EXPECT_EQ(rec["by_kind"]["getppid"], 5000) << env << ": " << rec;
    // The probe's own calls in the window are a handful: a fork, a wait,
    // its marks; the command's start (execve, its loading) a few dozen.
    EXPECT_LT(rec["syscalls"].get<double>(), 5000 + 200) << env << ": " << rec;
    ++checked;
  }
  EXPECT_EQ(checked, 1 + std::count(envs.begin(), envs.end(), ',')) << r.out << r.err;
}

}  // namespace
}  // namespace dlcbench
