// The accounting of the measured phase in every environment, for real: a
// training case and a micro-benchmark on the host and in Docker, Podman,
// runc, crun and gVisor's runsc. Every launch records one accounting line after its measured
// samples, each counter measured or unavailable with its reason (never a 0
// that was not read), and every sample its CPU time beside its wall time.
#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "../unit/test_files.h"
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
  // Measured samples, held by the worker until its accounting line (the
  // default --hold-samples): every one still reaches the results.
  std::map<std::string, int> measured;
  for (const auto& rec : records) {
    const std::string key = rec.value("env", "") + " " + rec.value("case", "");
    if (rec.value("type", "") == "sample") {
      EXPECT_TRUE(rec.contains("cpu_seconds") && rec["cpu_seconds"].get<double>() >= 0) << rec;
      if (rec.value("phase", "") == "measured") ++measured[key];
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
    // The machine over the same phase, read from outside: what judges a
    // run disturbed (analysis/disturbance.h), in every environment.
    ASSERT_TRUE(outside.contains("machine")) << key << ": " << outside;
    const json& machine = outside["machine"];
    EXPECT_GT(machine["phase_seconds"].get<double>(), 0) << key;
    EXPECT_GE(machine["cpus"].get<int>(), 1) << key;
    EXPECT_GE(machine["busy_seconds"].get<double>(), 0) << key;
    EXPECT_TRUE(machine["foreign_cpu_seconds"].is_number()) << key;
    EXPECT_GE(machine["orchestrator_cpu_seconds"].get<double>(), 0) << key;
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
    EXPECT_EQ(measured[key], 3 * n) << key << ": measured samples lost";
  }
}

// --hold-samples: the measured phase's sample lines come after its
// accounting line, so nothing is read or written while batches are timed;
// the warm-up's come as they happen.
TEST(Accounting, HeldSamplesFollowTheMeasuredPhase) {
  const auto r = testing::run_dlcbench({"worker", "--workload", "fcn5", "--data", "synthetic", "--batch", "2",
                                        "--warmup", "1", "--iters", "3", "--threads", "1", "--hold-samples"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  const auto position = [&](const std::string& type, const std::string& phase = "") {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].value("type", "") == type && (phase.empty() || lines[i].value("phase", "") == phase)) at.push_back(i);
    return at;
  };
  const auto phase = position("phase"), accounting = position("accounting"), warmup = position("sample", "warmup"),
             measured = position("sample", "measured");
  ASSERT_EQ(phase.size(), 1u);
  ASSERT_EQ(accounting.size(), 1u);
  ASSERT_EQ(warmup.size(), 1u);
  ASSERT_EQ(measured.size(), 3u);
  EXPECT_LT(warmup[0], phase[0]);
  EXPECT_EQ(accounting[0], phase[0] + 1);  // nothing printed while the phase ran
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(measured[i], accounting[0] + 1 + i);
    EXPECT_EQ(lines[measured[i]]["iter"], i);
  }
}

// Pinned threads and held samples are the default (they change where and
// when things run, not what is measured): recorded in the manifest, and
// seen by the worker itself; --no-pin-threads --no-hold-samples turn both off.
TEST(Accounting, PinningAndHeldSamplesAreTheRecordedDefault) {
  const auto run_with = [](std::vector<std::string> extra) {
    testing::TempDir out;
    std::vector<std::string> args = {"run",     "--workloads", "fcn5", "--envs", "host",      "--runs", "1",
                                     "--warmup", "0",          "--iters", "2",   "--batch", "4",   "--threads",
                                     "1",       "--data",      "synthetic", "--out", out.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = testing::run_dlcbench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto dir = testing::only_run_dir(out.path());
    json fingerprint;
    for (const auto& rec : testing::read_records(dir))
      if (rec.value("type", "") == "fingerprint") fingerprint = rec;
    return std::pair{json::parse(std::ifstream(dir / "manifest.json")), fingerprint};
  };
  const auto [pinned, pinned_fingerprint] = run_with({});
  EXPECT_EQ(pinned["worker_env"]["OMP_PROC_BIND"], "close");
  EXPECT_EQ(pinned["worker_env"]["OMP_PLACES"], "threads");
  EXPECT_TRUE(pinned["plan"]["hold_samples"].get<bool>());
  EXPECT_EQ(pinned_fingerprint["isolation"]["thread_variables"]["OMP_PROC_BIND"], "close") << pinned_fingerprint;
  const auto [loose, loose_fingerprint] = run_with({"--no-pin-threads", "--no-hold-samples"});
  EXPECT_FALSE(loose["worker_env"].contains("OMP_PROC_BIND")) << loose["worker_env"];
  EXPECT_FALSE(loose["plan"]["hold_samples"].get<bool>());
  EXPECT_FALSE(loose_fingerprint["isolation"]["thread_variables"].contains("OMP_PROC_BIND"));
  // One pinned thread is bound to the first CPU, yet the fingerprint lists
  // the CPUs the worker was given, as without pinning (else a runtime that
  // ignores binding, gVisor, would differ from the host).
  EXPECT_EQ(pinned_fingerprint["cpu"]["affinity"], loose_fingerprint["cpu"]["affinity"]);
  EXPECT_EQ(pinned_fingerprint["cpu"]["affinity_count"], loose_fingerprint["cpu"]["affinity_count"]);
}

// Other processes busy on every CPU while the run measures: each launch is
// judged disturbed from the machine's reading, never from its own times,
// set aside, kept in the files, and replaced by an added round up to
// --max-runs; most runs disturbed, so they stay in the statistics, and the
// report says so.
TEST(Accounting, ARunDisturbedFromOutsideIsSetAsideAndReplaced) {
  testing::BusyCpus busy;
  testing::TempDir out;
  const auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--envs", "host", "--runs", "2", "--max-runs",
                                        "3", "--warmup", "0", "--iters", "3", "--batch", "8", "--threads", "1",
                                        "--data", "synthetic", "--out", out.path().string()});
  busy.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One short line per disturbed launch; what disturbed it is the report's.
  EXPECT_THAT(r.err, HasSubstr("disturbed from outside: set aside"));
  EXPECT_THAT(r.out, HasSubstr("runs disturbed from outside: host "));
  EXPECT_THAT(r.err, HasSubstr("adding round 3 (at most 3)"));
  const auto dir = testing::only_run_dir(out.path());
  const json manifest = json::parse(std::ifstream(dir / "manifest.json"));
  EXPECT_EQ(manifest["rounds"], 3);
  EXPECT_EQ(manifest["added_rounds"]["added"], 1);
  EXPECT_EQ(manifest["added_rounds"]["stopped"], "--max-runs reached");
  EXPECT_GE(manifest["added_rounds"]["disturbed_launches"].get<int>(), 2);
  const auto report = testing::run_dlcbench({"report", dir.string(), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json host = json::parse(report.out)["cases"][0]["envs"][0];
  EXPECT_GE(host["disturbed_runs"].size(), 2u);
  EXPECT_TRUE(host["disturbed_kept"].get<bool>());
  EXPECT_EQ(host["disturbed_runs"][0]["readings"][0]["kind"], "foreign_cpu");
  const auto console = testing::run_dlcbench({"report", dir.string()});
  EXPECT_THAT(console.out, HasSubstr(" KEPT (too few undisturbed)"));
  const auto details = testing::run_dlcbench({"report", dir.string(), "--details"});
  EXPECT_THAT(details.out, HasSubstr("runs disturbed from outside, KEPT in the statistics"));
}

// Issue 35 item 3: a 10 ms command's launches were set aside for "other
// processes used 182.79% of the machine's CPU", its 4 ms phase read against
// 10 ms clock ticks. Every share is now a share (at most the whole machine),
// and where the machine has the root cgroup's finer count every launch is
// judged; where it has not, a launch too short to judge says so.
TEST(Accounting, AShortCommandIsJudgedWithinTheMachineOrSaidTooShort) {
  testing::TempDir out;
  const auto r = testing::run_dlcbench({"run", "--envs", "host", "--runs", "5", "--warmup", "0", "--out",
                                        out.path().string(), "--", "/bin/sleep", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dir = testing::only_run_dir(out.path());
  int launches = 0, fine = 0;
  for (const auto& rec : testing::read_records(dir)) {
    if (rec.value("type", "") != "accounting" || !rec.contains("outside")) continue;
    const json& machine = rec["outside"]["machine"];
    ++launches;
    fine += machine.value("busy_source", std::string()).find("cgroup") != std::string::npos;
    const double capacity = machine["phase_seconds"].get<double>() * machine["cpus"].get<double>();
    // Beyond its rounding, never more than the machine had.
    EXPECT_LE(machine["foreign_cpu_seconds"].get<double>() - machine["foreign_uncertainty_seconds"].get<double>(),
              capacity * 1.0001)
        << machine.dump();
  }
  EXPECT_EQ(launches, 5);
  const auto report = testing::run_dlcbench({"report", dir.string(), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json host = json::parse(report.out)["cases"][0]["envs"][0];
  for (const auto& run : host["disturbed_runs"])
    for (const auto& reading : run["readings"]) EXPECT_LE(reading["share"].get<double>(), 1.0) << run.dump();
  if (fine == launches) {
    EXPECT_EQ(host["runs_assessed_for_disturbance"], 5) << "the root cgroup's count judges every launch";
  }
}

}  // namespace
}  // namespace dlcbench
