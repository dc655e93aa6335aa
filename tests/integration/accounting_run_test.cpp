// The accounting of the measured phase in every environment, for real: a
// training case and a micro-benchmark on the host and in Docker, Podman,
// runc, crun and gVisor's runsc. Every launch records one accounting line after its measured
// samples, each counter measured or unavailable with its reason (never a 0
// that was not read), and every sample its CPU time beside its wall time.
#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// The counters the reports will explain overheads with, by JSON pointer.
const char* const kCounters[] = {"/process/user_seconds",        "/process/system_seconds",
                                 "/process/minor_faults",        "/process/involuntary_switches",
                                 "/process/run_queue_wait_seconds", "/machine/busy_seconds",
                                 "/machine/steal_seconds",       "/machine/others_cpu_seconds",
                                 "/machine/pressure/cpu/some_seconds", "/cgroup/periods",
                                 "/cgroup/throttled_seconds",    "/perf/page_faults",
                                 "/perf/context_switches",       "/perf/cpu_migrations",
                                 "/perf/cycles",                 "/perf/instructions"};

// "process.run_queue_wait_seconds" is explained by that key or by a prefix
// of it ("cgroup" for all of the cgroup's counters).
std::string why_unavailable(const json& record, const std::string& pointer) {
  std::string name = pointer.substr(1);
  std::replace(name.begin(), name.end(), '/', '.');
  for (const auto& [key, why] : record.at("unavailable").items())
    if (name == key || name.rfind(key + ".", 0) == 0) return why.get<std::string>();
  return "";
}

TEST(Accounting, EveryLaunchInEveryEnvironmentRecordsItsMeasuredPhase) {
  std::string envs = "host";
  for (const char* runtime : {"docker", "podman", "runc", "crun", "runsc"}) {
    REQUIRE_RUNTIME(runtime);
    envs += fmt::format(",{}", runtime);
  }
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "fcn5,gemm/sgemm:n=128", "--envs", envs, "--runs", "1",
                                  "--warmup", "1", "--iters", "3", "--batch", "16", "--data", "synthetic", "--out",
                                  out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = testing::read_records(testing::only_run_dir(out.path()));

  std::map<std::string, int> accounted;  // per env and case
  std::map<std::string, int> measured_after;  // samples after the launch's accounting line: none
  for (const auto& rec : records) {
    const std::string key = rec.value("env", "") + " " + rec.value("case", "");
    if (rec.value("type", "") == "sample") {
      EXPECT_TRUE(rec.contains("cpu_seconds") && rec["cpu_seconds"].get<double>() >= 0) << rec;
      if (accounted.count(key)) ++measured_after[key];
    }
    if (rec.value("type", "") != "accounting") continue;
    ++accounted[key];
    EXPECT_EQ(rec["phase"], "measured");
    EXPECT_EQ(rec["batches"], 3) << key;
    EXPECT_GT(rec["wall_end"].get<double>(), rec["wall_start"].get<double>()) << key;
    // Three batches of fcn5 take clock ticks of CPU; three 128x128 SGEMMs may
    // take less than the tick the kernel samples CPU time by.
    if (rec.value("case", "").rfind("fcn5", 0) == 0) {
      EXPECT_GT(rec["process"]["user_seconds"].get<double>(), 0) << key;
    }
    EXPECT_GE(rec["process"]["user_seconds"].get<double>(), 0) << key;
    EXPECT_GE(rec["accounting_seconds"].get<double>(), 0) << key;
    for (const char* counter : kCounters) {
      const json::json_pointer at(counter);
      if (rec.contains(at)) {
        EXPECT_TRUE(rec.at(at).is_number()) << key << " " << counter;
      } else {
        EXPECT_FALSE(why_unavailable(rec, counter).empty())
            << key << ": " << counter << " is neither measured nor unavailable with a reason: " << rec.dump();
      }
    }
    // Read from outside over the same phase: the environment's processes,
    // the worker's and the helpers' CPU, each named.
    const std::string env = rec["env"];
    ASSERT_TRUE(rec.contains("outside") && rec["outside"].is_object()) << key;
    const json& outside = rec["outside"];
    ASSERT_FALSE(outside.contains("unavailable")) << key << ": " << outside;
    EXPECT_GE(outside["environment_cpu_seconds"].get<double>(), 0) << key;
    EXPECT_NEAR(outside["worker_cpu_seconds"].get<double>() + outside["helpers_cpu_seconds"].get<double>(),
                outside["environment_cpu_seconds"].get<double>(), 1e-9)
        << key;
    if (rec.value("case", "").rfind("fcn5", 0) == 0) {
      EXPECT_GT(outside["worker_cpu_seconds"].get<double>(), 0) << key;
    }
    std::vector<std::string> commands;
    for (const auto& [name, seconds] : outside["by_command"].items()) commands.push_back(name);
    const auto has = [&](const std::string& prefix) {
      return std::any_of(commands.begin(), commands.end(), [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
    };
    if (env == "docker") {
      EXPECT_TRUE(has("containerd-shim")) << key << ": " << outside;
    }
    if (env == "podman") {
      EXPECT_TRUE(has("conmon")) << key << ": " << outside;
    }
    if (env == "runsc") {
      EXPECT_TRUE(has("runsc-sandbox")) << key << ": " << outside;
      EXPECT_EQ(rec.value("sandbox_kernel", ""), "gVisor") << key;
    }
    // Docker's and Podman's default seccomp profiles refuse perf_event_open,
    // and the record says so rather than writing zeros.
    if (env == "docker" || env == "podman") {
      EXPECT_FALSE(rec["perf"].contains("page_faults")) << key;
      EXPECT_THAT(why_unavailable(rec, "/perf/page_faults"), HasSubstr("seccomp")) << key;
    }
  }
  // One accounting line for every launch that ran: both cases, every environment.
  std::map<std::string, int> launches;
  for (const auto& rec : records)
    if (rec.value("type", "") == "launch" && rec.value("ok", false))
      ++launches[rec.value("env", "") + " " + rec.value("case", "")];
  EXPECT_EQ(launches.size(), 2 * static_cast<std::size_t>(std::count(envs.begin(), envs.end(), ',') + 1));
  for (const auto& [key, n] : launches) {
    EXPECT_EQ(accounted[key], n) << key;
    EXPECT_EQ(measured_after[key], 0) << key << ": samples after the accounting line";
  }
}

}  // namespace
}  // namespace dlcbench
