// The accounting of the measured phase: the kernel files' parsers on the
// texts real kernels write, and a real phase of work in this process whose
// every counter is a measured number or unavailable with a reason.
#include "core/accounting.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <thread>
#include <vector>

#include "core/timer.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(AccountingParsers, ProcStatFirstLine) {
  const auto t = parse_proc_stat("cpu  2284618 32580 458132 723454 35367 0 3447 17324 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->busy, 2284618u + 32580u + 458132u + 0u + 3447u);
  EXPECT_EQ(t->idle, 723454u + 35367u);
  EXPECT_EQ(t->steal, 17324u);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 3\n"));  // too few fields: not a guess
}

TEST(AccountingParsers, PressureWithAndWithoutFull) {
  const auto p = parse_pressure(
      "some avg10=0.23 avg60=0.29 avg300=1.02 total=4675772596\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=12\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->some_us, 4675772596u);
  EXPECT_EQ(p->full_us, 12u);
  const auto cpu_only_some = parse_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
  ASSERT_TRUE(cpu_only_some);
  EXPECT_FALSE(cpu_only_some->full_us);
  EXPECT_FALSE(parse_pressure(""));
}

TEST(AccountingParsers, CpuStatOfBothCgroupVersions) {
  const auto v1 = parse_cpu_stat("nr_periods 200\nnr_throttled 82\nthrottled_time 4100000000\n");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->periods, 200u);
  EXPECT_EQ(v1->throttled_periods, 82u);
  EXPECT_DOUBLE_EQ(v1->throttled_seconds, 4.1);
  const auto v2 = parse_cpu_stat(
      "usage_usec 10\nuser_usec 6\nsystem_usec 4\nnr_periods 50\nnr_throttled 5\nthrottled_usec 250000\n");
  ASSERT_TRUE(v2);
  EXPECT_DOUBLE_EQ(v2->throttled_seconds, 0.25);
  // The root cgroup of v2 has no quota, hence no periods: unavailable, not 0.
  EXPECT_FALSE(parse_cpu_stat("usage_usec 10\nuser_usec 6\nsystem_usec 4\n"));
}

TEST(AccountingParsers, SchedstatRunDelay) {
  EXPECT_DOUBLE_EQ(parse_schedstat("58860 1500000000 1\n")->wait_seconds, 1.5);
  EXPECT_DOUBLE_EQ(parse_schedstat("2000000000 1500000000 1\n")->cpu_seconds, 2.0);
  EXPECT_FALSE(parse_schedstat("garbage"));
}

// Every leaf counter is a number; any that is missing is named under
// "unavailable" with a reason.
void expect_measured_or_explained(const json& record, const json::json_pointer& at, const std::string& name) {
  const json& unavailable = record.at("unavailable");
  if (record.contains(at)) {
    EXPECT_TRUE(record.at(at).is_number()) << name << ": " << record.at(at);
    return;
  }
  bool explained = false;
  for (const auto& [key, why] : unavailable.items())
    if (name.rfind(key, 0) == 0 && why.is_string() && !why.get<std::string>().empty()) explained = true;
  EXPECT_TRUE(explained) << name << " is neither measured nor named as unavailable: " << record.dump();
}

TEST(PhaseAccounting, ARealPhaseIsMeasuredOrExplained) {
  PhaseAccounting accounting;
  accounting.start();
  const double cpu_before = process_cpu_seconds();
  Stopwatch clock;
  // Work on two threads and fault in fresh memory, so the counters move.
  std::vector<std::thread> threads;
  std::vector<double> sums(2);
  std::vector<double> thread_cpu(2);
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&sums, &thread_cpu, t] {
      std::vector<double> v(4'000'000, 1.0);
      for (int k = 0; k < 20; ++k)
        for (auto& x : v) x = std::sqrt(x + k);
      sums[static_cast<std::size_t>(t)] = v[0];
      timespec own{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &own);
      thread_cpu[static_cast<std::size_t>(t)] = static_cast<double>(own.tv_sec) + static_cast<double>(own.tv_nsec) * 1e-9;
    });
  for (auto& t : threads) t.join();
  const double wall = clock.seconds();
  const double cpu = process_cpu_seconds() - cpu_before;
  const json r = accounting.finish(1);

  EXPECT_EQ(r["type"], "accounting");
  EXPECT_EQ(r["phase"], "measured");
  // The process's CPU time holds both threads' own, however long a busy
  // machine kept them waiting (so no bound against the wall time).
  EXPECT_GT(thread_cpu[0], 0.0);
  EXPECT_GT(thread_cpu[1], 0.0);
  EXPECT_GE(cpu + 0.01, thread_cpu[0] + thread_cpu[1]);
  const double user = r["process"]["user_seconds"], system = r["process"]["system_seconds"];
  EXPECT_NEAR(user + system, cpu, 0.05 + 0.1 * cpu);
  EXPECT_GT(r["process"]["minor_faults"].get<double>(), 2 * 4'000'000 * 8 / 65536.0);  // at least a fault per 64 KiB
  EXPECT_GE(r["wall_end"].get<double>() - r["wall_start"].get<double>(), wall);
  EXPECT_GE(r["accounting_seconds"].get<double>(), 0);
  for (const char* field : {"/process/run_queue_wait_seconds", "/machine/busy_seconds", "/machine/steal_seconds",
                            "/machine/pressure/cpu/some_seconds", "/cgroup/throttled_periods", "/perf/page_faults",
                            "/perf/context_switches", "/perf/cpu_migrations", "/perf/cycles", "/perf/instructions"}) {
    std::string name = std::string(field).substr(1);
    std::replace(name.begin(), name.end(), '/', '.');
    expect_measured_or_explained(r, json::json_pointer(field), name);
  }
  // The threads started during the phase are inside the perf counts (inherited).
  if (r["perf"].contains("page_faults")) {
    EXPECT_GT(r["perf"]["page_faults"].get<double>(), 0.5 * r["process"]["minor_faults"].get<double>());
  }
}

TEST(ThreadTimes, ThreadsAtWorkCountEqualSharesWholeAndSliversAsSlivers) {
  EXPECT_DOUBLE_EQ(threads_at_work({}), 0);
  EXPECT_DOUBLE_EQ(threads_at_work({0, 0}), 0);
  EXPECT_DOUBLE_EQ(threads_at_work({1.5}), 1);
  EXPECT_DOUBLE_EQ(threads_at_work({1, 1}), 2);
  EXPECT_DOUBLE_EQ(threads_at_work({2, 2, 2, 2}), 4);
  // One busy thread and three that barely ran (a pool idle at a barrier).
  EXPECT_NEAR(threads_at_work({1, 0.01, 0.01, 0.01}), 1.06, 0.01);
}

TEST(ThreadTimes, APhaseCountsNewThreadsWholeAndLeavesEndedOnesOut) {
  const std::map<std::string, ThreadTimes> begin = {{"1", {1.0, 0.1}}, {"2", {0.5, 0.2}}, {"3", {0.2, 0.0}}};
  const std::map<std::string, ThreadTimes> end = {{"1", {2.0, 0.3}}, {"2", {1.5, 0.2}}, {"4", {1.0, 0.5}}};
  const ThreadPhase p = thread_phase(begin, end);
  EXPECT_NEAR(p.wait_seconds, 0.2 + 0.0 + 0.5, 1e-12);
  EXPECT_NEAR(p.threads_at_work, 3, 1e-12);  // 1 s each
  EXPECT_EQ(p.threads, 3u);
  EXPECT_EQ(p.ended_uncounted, 1u);
}

}  // namespace
}  // namespace dlcbench
