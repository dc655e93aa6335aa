// The explanation of an overhead: counters per batch read from accounting
// records as workers write them, and the time budget that names a cause
// only for a significant overhead whose change is itself significant.
#include "analysis/explanation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/accounting.h"
#include "core/errors.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A launch of 20 batches, its counters given per batch in milliseconds.
json accounting_record(double user_ms, double system_ms, double wait_ms, std::optional<double> throttled_ms,
                       double periods = 0, double throttled_periods = 0,
                       std::optional<double> threads_at_work = std::nullopt) {
  const double b = 20;
  json r = {{"type", "accounting"},
            {"batches", 20},
            {"process",
             {{"user_seconds", user_ms * b / 1e3},
              {"system_seconds", system_ms * b / 1e3},
              {"run_queue_wait_seconds", wait_ms * b / 1e3},
              {"minor_faults", 100 * b},
              {"major_faults", 0},
              {"voluntary_switches", 7 * b},
              {"involuntary_switches", 3 * b}}},
            {"machine", {{"others_cpu_seconds", 0.01 * b}, {"steal_seconds", 0.0}, {"busy_seconds", 1.0}}},
            {"perf", json::object()},
            {"unavailable", {{"perf.page_faults", "perf_event_open refused"}}}};
  if (threads_at_work) r["process"]["threads_at_work"] = *threads_at_work;
  if (throttled_ms)
    r["cgroup"] = {{"periods", periods}, {"throttled_periods", throttled_periods},
                   {"throttled_seconds", *throttled_ms * b / 1e3}};
  else
    r["unavailable"]["cgroup"] = "no cpu.stat";
  return r;
}

TEST(Explanation, ReadsEveryCounterPerBatchAndKeepsTheReasonsForTheOthers) {
  const auto l = read_launch_counters(accounting_record(300, 20, 50, 40.0, 100, 41), 0.25);
  EXPECT_DOUBLE_EQ(l.values.at(Counter::wall_ms), 250);
  EXPECT_NEAR(l.values.at(Counter::user_ms), 300, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::system_ms), 20, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::cpu_ms), 320, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::run_queue_wait_ms), 50, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::throttled_ms), 40, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::throttled_percent), 41, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::minor_faults), 100, 1e-9);
  EXPECT_NEAR(l.values.at(Counter::others_cpu_ms), 10, 1e-9);
  EXPECT_EQ(l.unavailable.at(Counter::perf_page_faults), "perf_event_open refused");
  EXPECT_FALSE(l.values.count(Counter::perf_page_faults));

  const auto none = read_launch_counters(accounting_record(300, 20, 50, std::nullopt), 0.25);
  EXPECT_EQ(none.unavailable.at(Counter::throttled_ms), "no cpu.stat");
  EXPECT_EQ(none.unavailable.at(Counter::throttled_percent), "no cpu.stat");
  EXPECT_FALSE(none.values.count(Counter::throttled_ms));

  // The machine's counters where /proc/stat is a sandbox's own: unavailable
  // with its reason, never the negative number it would give.
  json sandbox = accounting_record(300, 20, 50, std::nullopt);
  sandbox["machine"] = json::object();
  sandbox["unavailable"]["machine.others_cpu_seconds"] = "/proc/stat here does not count this process";
  const auto s = read_launch_counters(sandbox, 0.25);
  EXPECT_THAT(s.unavailable.at(Counter::others_cpu_ms), HasSubstr("does not count"));

  json wrong = accounting_record(300, 20, 50, 1.0);
  wrong["process"]["user_seconds"] = "a lot";
  EXPECT_THROW(read_launch_counters(wrong, 0.25), DataError);
}

// `runs` launches around the given per-batch figures, with a little noise.
std::vector<LaunchCounters> launches(int runs, double wall_ms, double user_ms, double system_ms, double wait_ms,
                                     std::optional<double> throttled_ms, unsigned seed,
                                     std::optional<double> threads_at_work = std::nullopt) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::vector<LaunchCounters> out;
  for (int i = 0; i < runs; ++i) {
    // Drawn one statement each: as arguments of one call their order would
    // be the compiler's (GCC and Clang draw them in opposite orders).
    const double t = throttled_ms ? *throttled_ms * noise(rng) : 0;
    const double wall = wall_ms * noise(rng);
    const std::optional<double> threads =
        threads_at_work ? std::optional<double>(*threads_at_work * noise(rng)) : std::nullopt;
    const double wait = wait_ms * noise(rng);
    const double system = system_ms * noise(rng);
    const double user = user_ms * noise(rng);
    out.push_back(read_launch_counters(accounting_record(user, system, wait,
                                                         throttled_ms ? std::optional<double>(t) : std::nullopt, 100,
                                                         throttled_ms ? 41 : 0, threads),
                                       wall / 1e3));
  }
  return out;
}

std::vector<double> walls(const std::vector<LaunchCounters>& ls) {
  std::vector<double> out;
  for (const auto& l : ls) out.push_back(l.values.at(Counter::wall_ms) / 1e3);
  return out;
}

const CauseShare* find_cause(const Explanation& e, Cause c) {
  for (const auto& s : e.causes)
    if (s.cause == c) return &s;
  return nullptr;
}

TEST(Explanation, AQuotaBelowTheThreadPoolIsExplainedByThrottling) {
  // Two threads on two CPUs: 100 ms of wall for 200 ms of CPU. Under a
  // 1-CPU quota the same CPU takes 200 ms of wall, half of it throttled:
  // cpu.stat sums the two run queues' throttled time, 200 ms, and each
  // thread waits through it.
  const auto base = launches(10, 100, 190, 10, 5, 0.0, 1);
  const auto quota = launches(10, 200, 190, 10, 5 + 2 * 100, 200.0, 2);
  const Overhead o = compare_figures("docker:cpus=1", {walls(quota), {}}, {walls(base), {}}, ComparisonWording::overhead);
  ASSERT_EQ(o.verdict, Verdict::slower);
  const Explanation e = explain_overhead(o, quota, base, 2, 2);
  EXPECT_EQ(e.status, ExplanationStatus::explained);
  EXPECT_NEAR(e.busy_threads, 2, 0.1);
  const CauseShare* throttled = find_cause(e, Cause::throttled);
  ASSERT_TRUE(throttled);
  EXPECT_TRUE(throttled->claimed);
  EXPECT_GT(throttled->share, 0.9);
  EXPECT_LT(throttled->share, 1.1);
  // On one CPU (cpuset=0) one run queue was throttled: its time is the wall's.
  const Explanation one_cpu = explain_overhead(o, quota, base, 2, 1);
  EXPECT_NEAR(find_cause(one_cpu, Cause::throttled)->ms.difference, 2 * throttled->ms.difference, 1e-6);
  // The waiting of a throttled thread is the throttling's, not counted twice.
  const CauseShare* wait = find_cause(e, Cause::run_queue_wait);
  ASSERT_TRUE(wait);
  EXPECT_FALSE(wait->claimed);
  EXPECT_FALSE(find_cause(e, Cause::more_user_cpu)->claimed);
  EXPECT_LT(std::abs(e.unexplained_ms), 0.1 * e.extra_ms.difference);
  const std::string words = explanation_words(e, "host");
  EXPECT_THAT(words, HasSubstr("explained by CPU quota throttling"));
  EXPECT_THAT(words, HasSubstr("throttled in 41% of periods"));
  EXPECT_THAT(words, HasSubstr("unexplained"));
}

TEST(Explanation, MoreSystemTimeIsNamedWithItsRatio) {
  // A sandbox: the same user time, nine times the system time.
  const auto base = launches(8, 100, 180, 10, 5, std::nullopt, 3);
  const auto sandbox = launches(8, 140, 180, 90, 5, std::nullopt, 4);
  const Overhead o = compare_figures("runsc", {walls(sandbox), {}}, {walls(base), {}}, ComparisonWording::overhead);
  const Explanation e = explain_overhead(o, sandbox, base, 2);
  ASSERT_EQ(e.status, ExplanationStatus::explained);
  const CauseShare* system = find_cause(e, Cause::more_system_cpu);
  ASSERT_TRUE(system);
  EXPECT_TRUE(system->claimed);
  EXPECT_NEAR(system->ms.difference, 80 / e.busy_threads, 3);
  EXPECT_THAT(explanation_words(e, "host"), HasSubstr("system time ×9"));
  // No throttling counter on either side: no such cause is offered.
  EXPECT_FALSE(find_cause(e, Cause::throttled));
}

TEST(Explanation, ASandboxWithoutTheSplitIsComparedByItsCPUSum) {
  // gVisor: the worker's CPU is one sum read from outside, and its run-queue
  // wait is unknown; the host has both. The sandbox's threads take 90 ms
  // more CPU per batch over two busy threads: both sides then give CPU as a
  // sum, and the host's run-queue wait is left out of the idle time too.
  const auto base = launches(8, 80, 95, 60, 33, std::nullopt, 21);
  auto sandbox = launches(8, 125, 140, 105, 0, std::nullopt, 22);
  for (auto& l : sandbox) {
    l.values.erase(Counter::user_ms);
    l.values.erase(Counter::system_ms);
    l.values.erase(Counter::run_queue_wait_ms);
  }
  const Overhead o = compare_figures("runsc", {walls(sandbox), {}}, {walls(base), {}}, ComparisonWording::overhead);
  ASSERT_EQ(o.verdict, Verdict::slower);
  const Explanation e = explain_overhead(o, sandbox, base, 2, 2);
  ASSERT_EQ(e.status, ExplanationStatus::explained);
  const CauseShare* cpu = find_cause(e, Cause::more_cpu);
  ASSERT_TRUE(cpu);
  EXPECT_TRUE(cpu->claimed);
  EXPECT_NEAR(cpu->ms.difference, 90 / e.busy_threads, 4);
  EXPECT_FALSE(find_cause(e, Cause::more_user_cpu));
  EXPECT_FALSE(find_cause(e, Cause::run_queue_wait));
  const CauseShare* idle = find_cause(e, Cause::fewer_busy_cpus);
  ASSERT_TRUE(idle);
  // Idle time on both sides without the host's run-queue wait: nearly none.
  EXPECT_LT(std::abs(idle->ms.difference), 5);
  EXPECT_THAT(explanation_words(e, "host"), HasSubstr("more CPU time for the worker's own code"));
}

TEST(Explanation, NothingMeasuredThatMovedIsSaidSo) {
  const auto base = launches(8, 100, 180, 10, 5, 0.0, 5);
  const auto slower = launches(8, 130, 180, 10, 5, 0.0, 6);
  const Overhead o = compare_figures("docker", {walls(slower), {}}, {walls(base), {}}, ComparisonWording::overhead);
  ASSERT_EQ(o.verdict, Verdict::slower);
  const Explanation e = explain_overhead(o, slower, base, 2);
  EXPECT_EQ(e.status, ExplanationStatus::unexplained);
  EXPECT_THAT(explanation_words(e, "host"), HasSubstr("nothing measured accounts for"));
}

TEST(Explanation, FewerThreadsAtWorkExplainCPUsLeftIdle) {
  // Two threads on two CPUs: 100 ms of wall for 190 ms of CPU. Told to use
  // one thread, the same CPU takes 190 ms of wall, with no more waiting.
  const auto base = launches(8, 100, 180, 10, 5, 0.0, 11, 1.95);
  const auto one_thread = launches(8, 190, 180, 10, 5, 0.0, 12, 1.02);
  const Overhead o = compare_figures("docker", {walls(one_thread), {}}, {walls(base), {}}, ComparisonWording::overhead);
  ASSERT_EQ(o.verdict, Verdict::slower);
  const Explanation e = explain_overhead(o, one_thread, base, 2, 2);
  ASSERT_EQ(e.status, ExplanationStatus::explained);
  const CauseShare* idle = find_cause(e, Cause::fewer_busy_cpus);
  ASSERT_TRUE(idle);
  EXPECT_TRUE(idle->claimed);
  EXPECT_GT(idle->share, 0.85);
  EXPECT_LT(idle->share, 1.15);
  EXPECT_FALSE(find_cause(e, Cause::more_user_cpu)->claimed);
  const std::string words = explanation_words(e, "host");
  EXPECT_THAT(words, HasSubstr("explained by fewer CPUs kept busy ("));
  EXPECT_THAT(words, HasSubstr("threads at work 1.0 against 2.0"));

  // The same times with as many threads at work (a thread blocked on I/O, a
  // lock): nothing measured says why, so it stays unexplained.
  const auto blocked = launches(8, 190, 180, 10, 5, 0.0, 13, 1.95);
  const Overhead ob = compare_figures("docker", {walls(blocked), {}}, {walls(base), {}}, ComparisonWording::overhead);
  const Explanation eb = explain_overhead(ob, blocked, base, 2, 2);
  EXPECT_EQ(eb.status, ExplanationStatus::unexplained);
  EXPECT_FALSE(find_cause(eb, Cause::fewer_busy_cpus)->claimed);
}

TEST(Explanation, NoCauseForAnOverheadThatIsNotSignificant) {
  const auto base = launches(8, 100, 180, 10, 5, 0.0, 7);
  const auto same = launches(8, 100, 180, 30, 5, 0.0, 8);  // system time moved, the wall did not
  const Overhead o = compare_figures("docker", {walls(same), {}}, {walls(base), {}}, ComparisonWording::overhead);
  ASSERT_FALSE(is_significant(o.verdict));
  const Explanation e = explain_overhead(o, same, base, 2);
  EXPECT_EQ(e.status, ExplanationStatus::not_significant);
  EXPECT_TRUE(e.causes.empty());
  EXPECT_EQ(explanation_words(e, "host"), "");
  // The counters are still compared, for the report's table.
  ASSERT_FALSE(e.counters.empty());
  EXPECT_EQ(e.counters.front().counter, Counter::wall_ms);
}

TEST(Explanation, HostAgainstHostClaimsACauseRarely) {
  // The null experiment, 20 seeded repetitions at the default budget (20
  // runs a side): a 5% test makes about one significant by chance, and a
  // cause needs its own change to be significant too.
  int claimed = 0;
  for (unsigned rep = 0; rep < 20; ++rep) {
    std::mt19937 rng(1000 + rep);
    std::lognormal_distribution<double> noise(0, 0.08);
    auto noisy = [&](int runs) {
      std::vector<LaunchCounters> out;
      for (int i = 0; i < runs; ++i) {
        const double k = noise(rng);
        out.push_back(read_launch_counters(accounting_record(180 * k * noise(rng), 10 * noise(rng), 20 * noise(rng), 0.0),
                                           0.1 * k));
      }
      return out;
    };
    const auto a = noisy(20), b = noisy(20);
    const Overhead o = compare_figures("host#2", {walls(b), {}}, {walls(a), {}}, ComparisonWording::overhead);
    claimed += explain_overhead(o, b, a, 2).status == ExplanationStatus::explained;
  }
  EXPECT_LE(claimed, 3);
}

TEST(Explanation, WithoutCountersOnOneSideNothingIsClaimed) {
  const auto base = launches(8, 100, 180, 10, 5, 0.0, 9);
  std::vector<LaunchCounters> bare;
  for (double w : {0.2, 0.21, 0.19, 0.2}) bare.push_back({{{Counter::wall_ms, w * 1e3}}, {}});
  const Overhead o = compare_figures("docker", {walls(bare), {}}, {walls(base), {}}, ComparisonWording::overhead);
  const Explanation e = explain_overhead(o, bare, base, 2);
  EXPECT_EQ(e.status, ExplanationStatus::no_counters);
  EXPECT_THAT(explanation_words(e, "host"), HasSubstr("recorded no CPU accounting"));
}

TEST(Explanation, GvisorsKernelIsRecognisedByItsVersionLine) {
  EXPECT_TRUE(is_gvisor_kernel("Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016\n"));
  EXPECT_FALSE(is_gvisor_kernel("Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org) #1 SMP"));
  EXPECT_FALSE(is_gvisor_kernel(""));
}

}  // namespace
}  // namespace dlcbench
