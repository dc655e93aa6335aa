#include "analysis/analysis.h"

#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlcbench {
namespace {

using ::testing::AnyOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

const char* kCase = "fcn5/torch/cpu/b8";

json run_manifest() {
  return {{"plan",
           {{"baseline", "host"},
            {"environments", {"host", "docker"}},
            {"cases", {{{"id", kCase}}}}}}};
}

json fingerprint(const std::string& env, int round, const std::string& core = "Zen") {
  return {{"type", "fingerprint"}, {"env", env}, {"round", round}, {"case", kCase},
          {"binary_sha256", "abc"}, {"blas", {{"core", core}, {"threads", 2}}},
          {"backend", {{"version", "1.13.0"}, {"threads", {{"requested", 2}, {"intra_op", 2}}}}},
          {"dataset", {{"name", "synthetic"}}}, {"container", {{"in_container", env == "docker"}}}};
}

// One launch: a fingerprint, a warm-up sample, the measured samples and the
// launch record, as the scheduler writes them.
void add_launch(std::vector<json>& r, const std::string& env, int round, std::vector<double> seconds,
                bool ok = true, const std::string& core = "Zen") {
  r.push_back(fingerprint(env, round, core));
  r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", kCase}, {"phase", "warmup"},
               {"seconds", 9.0}, {"loss", 3.0}});
  for (std::size_t i = 0; i < seconds.size(); ++i)
    r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", kCase}, {"phase", "measured"},
                 {"iter", i}, {"seconds", seconds[i]}, {"loss", 2.0 - 0.1 * static_cast<double>(i)}});
  r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", kCase}, {"ok", ok},
               {"cause", ok ? "" : "worker killed by signal 9 (Killed)"}});
}

TEST(Analysis, RunMeansAreTheStatisticalUnit) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0, 3.0});
  add_launch(r, "docker", 1, {2.0, 2.2});
  add_launch(r, "host", 2, {2.0, 4.0});
  add_launch(r, "docker", 2, {2.4, 2.6});
  Analysis a = analyze(run_manifest(), r);
  ASSERT_EQ(a.cases.size(), 1u);
  const auto& host = a.cases[0].envs[0];
  EXPECT_EQ(host.env, "host");
  EXPECT_EQ(host.run_values, (std::vector<double>{2.0, 3.0}));
  EXPECT_EQ(host.batch_seconds.size(), 4u);
  EXPECT_EQ(host.warmup_seconds.size(), 2u);  // kept apart, not in the statistics
  EXPECT_DOUBLE_EQ(host.runs.mean, 2.5);
  EXPECT_DOUBLE_EQ(*host.first_loss, 2.0);
  EXPECT_DOUBLE_EQ(*host.last_loss, 1.9);
  ASSERT_EQ(a.cases[0].overheads.size(), 1u);
  EXPECT_NEAR(a.cases[0].overheads[0].estimate.ratio, 2.3 / 2.5, 1e-12);
  EXPECT_TRUE(a.comparable);
  EXPECT_TRUE(a.cases[0].envs[1].in_container);
}

TEST(Analysis, TheLoadersWaitForDataIsItsShareOfTheMeasuredTimeAndAbsentElsewhere) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0, 3.0});
  add_launch(r, "docker", 1, {2.0, 2.0});
  // The samples' detail, as the loader writes it: 0.5 s and 1.5 s of 4 s.
  r[2]["detail"] = {{"data_wait_seconds", 0.5}};
  r[3]["detail"] = {{"data_wait_seconds", 1.5}};
  const Analysis a = analyze(run_manifest(), r);
  ASSERT_TRUE(a.cases[0].envs[0].data_wait_share.has_value());
  EXPECT_DOUBLE_EQ(*a.cases[0].envs[0].data_wait_share, 0.5);
  EXPECT_FALSE(a.cases[0].envs[1].data_wait_share.has_value());
}

// serve: per run each latency quantile of its requests, and each compared
// with the baseline's paired by round: a server whose median stays and whose
// tail doubles reads as just that.
TEST(Analysis, AServeCasesQuantilesAreComparedEachPairedByRound) {
  CaseSpec spec;
  spec.workload = "serve";
  spec.variant = "fcn5";
  spec.backend = "torch";
  spec.size = 1;
  spec.batch = 1;
  spec.workers = 2;
  spec.clients = 2;
  spec.rate = 100;
  spec.iters = 1000;
  const std::string id = spec.id();
  json m = {{"plan", {{"baseline", "host"}, {"environments", {"host", "docker"}}, {"cases", {json(spec)}}}}};
  std::vector<json> r;
  std::mt19937_64 rng(7);
  for (int round = 1; round <= 8; ++round)
    for (const std::string env : {"host", "docker"}) {
      r.push_back({{"type", "listening"}, {"env", env}, {"round", round}, {"case", id}, {"port", 4000},
                   {"path", env == "host" ? "host" : "veth"}});
      std::uniform_real_distribution<double> body(0.0010, 0.0012);
      for (int i = 0; i < 1000; ++i) {
        // 5% of the requests are slow: 5 ms on the host, 10 ms in docker.
        const double tail = env == "host" ? 0.005 : 0.010;
        const double seconds = i % 20 == 0 ? tail * (1 + 0.01 * round) : body(rng);
        r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", id}, {"phase", "measured"},
                     {"iter", i}, {"seconds", seconds}});
      }
      r.push_back({{"type", "load"}, {"env", env}, {"round", round}, {"case", id}, {"achieved_rate", 99.5}});
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", id}, {"ok", true}});
    }
  const Analysis a = analyze(m, r);
  const CaseAnalysis& c = a.cases[0];
  ASSERT_TRUE(c.serves());
  EXPECT_EQ(c.run_statistic, "p99");
  EXPECT_EQ(c.envs[1].serve_path, "veth");
  ASSERT_TRUE(c.envs[1].achieved_rate().has_value());
  EXPECT_DOUBLE_EQ(*c.envs[1].achieved_rate(), 99.5);
  ASSERT_EQ(c.envs[0].latency_runs.size(), 4u);
  EXPECT_EQ(c.envs[0].latency_runs[0].size(), 8u);
  ASSERT_EQ(c.latency.count("docker"), 1u);
  const auto& quantiles = c.latency.at("docker");
  ASSERT_EQ(quantiles.size(), 4u);
  EXPECT_EQ(quantiles[0].quantile, "p50");
  EXPECT_FALSE(is_significant(quantiles[0].comparison.verdict));
  EXPECT_NEAR(quantiles[0].comparison.headline.time_ratio, 1.0, 0.05);
  EXPECT_EQ(quantiles[2].quantile, "p99");
  EXPECT_EQ(quantiles[2].comparison.verdict, Verdict::slower);
  EXPECT_NEAR(quantiles[2].comparison.headline.time_ratio, 2.0, 0.05);
  // The headline is p99's.
  EXPECT_NEAR(c.overheads[0].headline.time_ratio, 2.0, 0.05);
}

// syscall/table: each run's median cost per kind of call, each kind against
// the baseline's paired by round, and what runs the calls in a sandbox.
TEST(Analysis, ACostTablesKindsAreEachComparedAndTheSandboxIsNamed) {
  CaseSpec spec;
  spec.workload = "syscall";
  spec.backend = "none";
  spec.variant = "table";
  spec.size = 10000;
  const std::string id = spec.id();
  json m = {{"plan", {{"baseline", "host"}, {"environments", {"host", "runsc"}}, {"cases", {json(spec)}}}},
            {"environments",
             {{"runsc",
               {{"program", "/usr/bin/runsc"},
                {"version", "runsc version 0.0~20221219.0"},
                {"command", {"/usr/bin/runsc", "--root", "<state>", "--platform=ptrace", "run"}}}}}}};
  std::vector<json> r;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> jitter(0.97, 1.03);
  for (int round = 1; round <= 8; ++round)
    for (const std::string env : {"host", "runsc"}) {
      for (int i = 0; i < 5; ++i) {
        // runsc: null 500x the host's, futex 40x.
        const double null_ns = (env == "host" ? 140 : 70000) * jitter(rng);
        const double futex_ns = (env == "host" ? 5000 : 200000) * jitter(rng);
        r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", id}, {"phase", "measured"},
                     {"iter", i}, {"seconds", (null_ns + futex_ns) * 5000e-9}, {"work", 10000},
                     {"detail", {{"ns_per_call", {{"null", null_ns}, {"futex", futex_ns}, {"bad", "x"}}}}}});
      }
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", id}, {"ok", true}});
    }
  const Analysis a = analyze(m, r);
  const CaseAnalysis& c = a.cases[0];
  EXPECT_EQ(c.envs[0].sandbox, "");
  EXPECT_EQ(c.envs[1].sandbox, "gVisor, runsc version 0.0~20221219.0, ptrace platform");
  ASSERT_EQ(c.envs[1].call_ns_runs.at("null").size(), 8u);
  EXPECT_EQ(c.envs[1].call_ns_runs.count("bad"), 0u);  // not a number: left out
  ASSERT_EQ(c.call_costs.count("runsc"), 1u);
  const auto& kinds = c.call_costs.at("runsc");
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0].kind, "null");  // the table's order: null before futex
  EXPECT_EQ(kinds[1].kind, "futex");
  EXPECT_NEAR(kinds[0].comparison.robust.ratio, 500, 15);
  EXPECT_NEAR(kinds[0].baseline_ns, 140, 5);
  EXPECT_NEAR(kinds[0].added_ns(), 70000 - 140, 2500);
  EXPECT_LT(kinds[0].added_low(), kinds[0].added_ns());
  EXPECT_GT(kinds[0].added_high(), kinds[0].added_ns());
  EXPECT_NEAR(kinds[1].comparison.robust.ratio, 40, 1.5);
}

TEST(Analysis, LaunchesTheManifestCountsButTheResultsLackAreNamed) {
  // Issue 18: a run whose manifest says "completed" but whose results.jsonl
  // is half gone (or empty) reported as complete, every cell n/a.
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0});
  add_launch(r, "docker", 1, {1.1});
  json m = run_manifest();
  m["status"] = "completed";
  m["launches"] = 4;
  const Analysis half = analyze(m, r);
  EXPECT_TRUE(half.results_lost());
  EXPECT_FALSE(half.nothing_left());
  EXPECT_THAT(half.notes, ::testing::Contains(HasSubstr("the manifest records 4 launches; results.jsonl holds 2")));
  const Analysis none = analyze(m, {});
  EXPECT_TRUE(none.nothing_left());
  EXPECT_THAT(none.notes, ::testing::Contains(HasSubstr("everything it measured was lost")));
  m["launches"] = 2;
  EXPECT_FALSE(analyze(m, r).results_lost());
  m.erase("launches");  // a run still going, or killed: nothing to hold it against
  EXPECT_FALSE(analyze(m, {}).results_lost());
}

TEST(Analysis, FewerThanFiveRunsAreNotAssessedForOutliers) {
  // Issue 18: one run five times slower among four was "outlier runs: none".
  std::vector<json> r;
  int round = 1;
  for (double s : {1.0, 1.01, 0.99, 5.0}) add_launch(r, "host", round++, {s});
  const EnvironmentStats four = analyze(run_manifest(), r).cases[0].envs[0];
  EXPECT_FALSE(four.outliers_assessed);
  EXPECT_TRUE(four.outlier_runs.empty());
  add_launch(r, "host", round++, {1.02});
  const EnvironmentStats five = analyze(run_manifest(), r).cases[0].envs[0];
  EXPECT_TRUE(five.outliers_assessed);
  EXPECT_EQ(five.outlier_runs, (std::vector<std::size_t>{3}));
}

TEST(Analysis, AFailedLaunchIsCountedWithItsCauseAndLeftOut) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0});
  add_launch(r, "docker", 1, {5.0}, /*ok=*/false);
  add_launch(r, "docker", 2, {1.1});
  Analysis a = analyze(run_manifest(), r);
  const auto& docker = a.cases[0].envs[1];
  EXPECT_EQ(docker.run_values, (std::vector<double>{1.1}));
  EXPECT_EQ(docker.failed_launches, 1);
  EXPECT_THAT(docker.failures[0], HasSubstr("signal 9"));
}

TEST(Analysis, SamplesOfAnInterruptedLaunchAreNotedNotUsed) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0});
  r.push_back(fingerprint("docker", 1));
  r.push_back({{"type", "sample"}, {"env", "docker"}, {"round", 1}, {"case", kCase}, {"phase", "measured"},
               {"seconds", 1.0}});
  Analysis a = analyze(run_manifest(), r);
  EXPECT_TRUE(a.cases[0].envs[1].run_values.empty());
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_THAT(a.notes[0], HasSubstr("did not finish"));
}

TEST(Analysis, ADifferentBlasKernelStopsTheComparison) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0});
  add_launch(r, "docker", 1, {1.0}, true, "Prescott");
  Analysis a = analyze(run_manifest(), r);
  EXPECT_FALSE(a.comparable);
  ASSERT_EQ(a.cases[0].overheads[0].mismatches.size(), 1u);
  EXPECT_EQ(a.cases[0].overheads[0].mismatches[0].field, "blas/core");
  EXPECT_EQ(a.cases[0].overheads[0].mismatches[0].other_value, "Prescott");
}

json with_field(json fp, const std::string& pointer, json value) {
  fp[json::json_pointer(pointer)] = std::move(value);
  return fp;
}

json manifest_with(std::vector<std::string> envs, bool allow_mismatch = false) {
  json m = run_manifest();
  m["plan"]["environments"] = envs;
  m["plan"]["allow_mismatch"] = allow_mismatch;
  return m;
}

// Two rounds per environment, so a verdict with an interval is possible.
std::vector<json> two_envs(const std::string& other, const std::string& pointer, const json& host_value,
                           const json& other_value) {
  std::vector<json> r;
  for (int round = 1; round <= 2; ++round) {
    std::size_t fingerprint_at = r.size();
    add_launch(r, "host", round, {1.0, 1.1});
    r[fingerprint_at] = with_field(r[fingerprint_at], pointer, host_value);
    fingerprint_at = r.size();
    add_launch(r, other, round, {1.2, 1.3});
    r[fingerprint_at] = with_field(r[fingerprint_at], pointer, other_value);
  }
  return r;
}

TEST(Analysis, ALimitTheUserAskedForIsShownNotAStop) {
  auto r = two_envs("docker:cpus=1", "/cgroup/cpu_quota", nullptr, 1.0);
  // As the orchestrator records it at plan time: the analysis itself knows
  // nothing of the runtimes' options.
  json m = manifest_with({"host", "docker:cpus=1"});
  m["plan"]["requested_fields"] = {{"host", json::array()}, {"docker:cpus=1", {"/cgroup/cpu_quota"}}};
  Analysis a = analyze(m, r);
  EXPECT_TRUE(a.comparable);
  const Overhead& o = a.cases[0].overheads.at(0);
  EXPECT_TRUE(o.compared);
  ASSERT_EQ(o.mismatches.size(), 1u);
  EXPECT_TRUE(o.mismatches[0].requested);
  EXPECT_THAT(describe_mismatches(o.mismatches, "host", "docker:cpus=1"),
              HasSubstr("cgroup/cpu_quota: host has none, docker:cpus=1 has 1.0 (asked for)"));
}

TEST(Analysis, AManifestWithoutRequestedFieldsGetsThemFromItsLabels) {
  // An older manifest has no plan.requested_fields: its reader
  // (model/recorded_plan.h) derives them from the labels, so the quota that
  // cpus=1 asked for is compared, as in a manifest that records it.
  auto r = two_envs("docker:cpus=1", "/cgroup/cpu_quota", nullptr, 1.0);
  const Analysis a = analyze(manifest_with({"host", "docker:cpus=1"}), r);
  EXPECT_TRUE(a.cases[0].overheads.at(0).compared);
}

TEST(AnalysisPasses, SummarizeEnvironmentsNotesMicroBenchmarksOfDifferentWork) {
  CaseAnalysis ca;
  ca.case_id = "gemm/sgemm/n64";
  ca.micro = true;
  ca.envs.resize(2);
  ca.envs[0].env = "host";
  ca.envs[0].run_values = {1, 2, 3, 4, 5};
  ca.envs[0].work = 100;
  ca.envs[1].env = "docker";
  ca.envs[1].run_values = {1};
  ca.envs[1].work = 200;
  std::vector<std::string> notes;
  summarize_environments(ca, notes);
  EXPECT_DOUBLE_EQ(ca.envs[0].runs.mean, 3);
  EXPECT_TRUE(ca.envs[0].outliers_assessed);
  EXPECT_FALSE(ca.envs[1].outliers_assessed);
  EXPECT_DOUBLE_EQ(ca.work, 100);  // the first
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("the work of one operation differs between environments (100, 200)"));
}

TEST(AnalysisPasses, ComparisonMismatchesNameWorkAndDriftBetweenRounds) {
  CaseAnalysis ca;
  ca.micro = true;
  EnvironmentStats base, other;
  base.env = "host";
  other.env = "docker";
  base.work = 1;
  other.work = 2;
  other.fingerprint_changes = {"round 2: blas/core Zen -> Haswell"};
  const auto mismatches = comparison_mismatches(ca, base, other, {});
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches[0].field, "work of one operation");
  EXPECT_EQ(mismatches[1].field, "docker changed between rounds, round 2: blas/core Zen -> Haswell");
  EXPECT_TRUE(stops_comparison(mismatches));
}

TEST(AnalysisPasses, CompareWithBaselineMarksOrStopsByTheMismatchPolicy) {
  CaseAnalysis ca;
  ca.envs.resize(2);
  ca.envs[0].env = "host";
  ca.envs[0].run_values = {1.0, 1.1};
  ca.envs[0].fingerprint = json{{"blas", {{"core", "Zen"}}}};
  ca.envs[1].env = "docker";
  ca.envs[1].run_values = {1.0, 1.2};
  ca.envs[1].fingerprint = json{{"blas", {{"core", "Haswell"}}}};
  Analysis stopped;
  stopped.baseline = "host";
  CaseAnalysis first = ca;
  compare_with_baseline(first, stopped, {});
  EXPECT_FALSE(stopped.comparable);
  EXPECT_FALSE(first.overheads.at(0).compared);
  Analysis allowed;
  allowed.baseline = "host";
  allowed.allow_mismatch = true;
  compare_with_baseline(ca, allowed, {});
  EXPECT_TRUE(allowed.comparable);
  EXPECT_TRUE(ca.overheads.at(0).mismatch_allowed);
}

TEST(Analysis, AQuotaNobodyAskedForStopsTheComparisonWithAFix) {
  auto r = two_envs("docker", "/cgroup/cpu_quota", nullptr, 1.0);
  Analysis a = analyze(manifest_with({"host", "docker"}), r);
  EXPECT_FALSE(a.comparable);
  const Overhead& o = a.cases[0].overheads.at(0);
  EXPECT_FALSE(o.compared);
  EXPECT_THAT(describe_mismatches(o.mismatches, "host", "docker"), HasSubstr("not asked for; fix: give the container"));
}

TEST(Analysis, AllowMismatchComparesAndMarksIt) {
  auto r = two_envs("docker", "/blas/core", "Zen", "Haswell");
  Analysis a = analyze(manifest_with({"host", "docker"}, true), r);
  EXPECT_TRUE(a.comparable);
  const Overhead& o = a.cases[0].overheads.at(0);
  EXPECT_TRUE(o.compared);
  EXPECT_TRUE(o.mismatch_allowed);
  EXPECT_NEAR(o.estimate.ratio, 1.25 / 1.05, 1e-12);
}

TEST(Analysis, AMemoryLimitNobodyAskedForIsShownButDoesNotStop) {
  auto r = two_envs("docker", "/cgroup/memory_limit_bytes", 25769803776.0, nullptr);
  Analysis a = analyze(manifest_with({"host", "docker"}), r);
  EXPECT_TRUE(a.comparable);
  const Overhead& o = a.cases[0].overheads.at(0);
  ASSERT_EQ(o.mismatches.size(), 1u);
  EXPECT_FALSE(o.mismatches[0].blocking);
  EXPECT_FALSE(o.mismatch_allowed);
}

TEST(Analysis, StartupRunsAreTheMedianOfTheirStarts) {
  json m = run_manifest();
  m["plan"]["cases"] = {{{"id", "startup"}, {"workload", "startup"}}};
  std::vector<json> r;
  for (const char* env : {"host", "docker"}) {
    for (double s : {0.5, 0.1, 0.2, 0.3, 9.0})
      r.push_back({{"type", "sample"}, {"env", env}, {"round", 1}, {"case", "startup"}, {"phase", "measured"},
                   {"seconds", s}});
    r.push_back({{"type", "launch"}, {"env", env}, {"round", 1}, {"case", "startup"}, {"ok", true}});
  }
  Analysis a = analyze(m, r);
  ASSERT_EQ(a.cases.size(), 1u);
  EXPECT_TRUE(a.cases[0].startup);
  EXPECT_EQ(a.cases[0].unit, "s/start");
  EXPECT_EQ(a.cases[0].envs[0].run_values, std::vector<double>{0.3});
  EXPECT_EQ(a.cases[0].envs[0].batch_seconds.size(), 5u);
}

TEST(Analysis, AFingerprintThatChangesBetweenRoundsIsAMismatch) {
  std::vector<json> r;
  add_launch(r, "host", 1, {1.0});
  add_launch(r, "docker", 1, {1.0});
  add_launch(r, "host", 2, {1.0});
  add_launch(r, "docker", 2, {1.0}, true, "Haswell");
  Analysis a = analyze(run_manifest(), r);
  EXPECT_FALSE(a.comparable);
}

TEST(Analysis, UnavailableEnvironmentsBecomeNotes) {
  std::vector<json> r;
  r.push_back({{"type", "environment_unavailable"}, {"env", "docker"}, {"reason", "daemon down"}});
  add_launch(r, "host", 1, {1.0});
  Analysis a = analyze(run_manifest(), r);
  EXPECT_TRUE(a.cases[0].overheads.empty());
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_THAT(a.notes[0], HasSubstr("docker: daemon down"));
}

// The null experiment: one environment measured twice (`--envs host,host`,
// labelled host and host#2). Run values are drawn from one distribution,
// log-normal with a 6% spread (the CV of run means on our shared 2-core
// machine), 20 runs each, as a run writes them.
Analysis null_experiment(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> seconds(std::log(0.2), 0.06);
  json m = manifest_with({"host", "host#2"});
  std::vector<json> r;
  for (int round = 1; round <= 20; ++round)
    for (const char* env : {"host", "host#2"}) add_launch(r, env, round, {seconds(rng)});
  return analyze(m, r);
}

TEST(NullExperiment, FalseAlarmRateIsAtMostTheTestsFivePercent) {
  // 2000 seeded repetitions: the robust interval, a 5% test, excludes 1 in
  // 100 +- 9.7 (binomial sd); 3 sd either side is 71..129. The verdict also
  // needs the mean's interval to agree, so it alarms in no more of them,
  // and in most: with independent runs the two tests mostly agree.
  int robust_alarms = 0, alarms = 0;
  for (std::uint64_t seed = 1000; seed < 3000; ++seed) {
    const Overhead o = null_experiment(seed).cases[0].overheads[0];
    robust_alarms += o.robust.ci95_low > 1 || o.robust.ci95_high < 1;
    alarms += is_significant(o.verdict);
  }
  EXPECT_GE(robust_alarms, 71);
  EXPECT_LE(robust_alarms, 129);
  EXPECT_LE(alarms, robust_alarms);
  EXPECT_GE(alarms, robust_alarms / 2) << alarms << " of " << robust_alarms;
}

// A comparison with the given robust interval and mean's interval, as
// compare_figures concludes it.
Overhead judged(double robust_low, double robust_high, double mean_ratio, double mean_low, double mean_high,
                RatioInterval interval = RatioInterval::bounded,
                ComparisonWording wording = ComparisonWording::overhead) {
  Overhead o;
  o.robust = {std::sqrt(robust_low * robust_high), robust_low, robust_high, true, 20, true};
  o.estimate = {mean_ratio, mean_low, mean_high, 4, interval, {1, 10, 0.5}};
  o.runs_needed = interval == RatioInterval::bounded ? 0 : 7;
  conclude(o, wording);
  return o;
}

TEST(Verdict, SignificanceNeedsBothIntervals) {
  const Overhead slower = judged(1.03, 1.07, 1.05, 1.02, 1.08);
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_THAT(slower.verdict_text, HasSubstr("slower by 5.0% (95% CI +3.0% .. +7.0%; mean +5.0%, 95% CI +2.0% .. +8.0%)"));
  EXPECT_EQ(judged(0.85, 0.95, 0.9, 0.8, 0.99).verdict, Verdict::faster);
  // The mean alone excluding 1 is not significance: a few runs carry it.
  const Overhead stalls = judged(0.99, 1.03, 1.06, 1.01, 1.11);
  EXPECT_EQ(stalls.verdict, Verdict::inconclusive);
  EXPECT_TRUE(stalls.mean_disagrees);
  EXPECT_THAT(stalls.verdict_text, HasSubstr("the mean says slower by 6.0%: a few runs far off the rest carry the difference"));
  // Nor the robust interval alone: rounds that drift together narrow it.
  const Overhead drift = judged(1.001, 1.05, 1.037, 0.973, 1.105);
  EXPECT_EQ(drift.verdict, Verdict::inconclusive);
  EXPECT_TRUE(drift.mean_disagrees);
  EXPECT_THAT(drift.verdict_text, HasSubstr("the robust interval alone says slower by 2.5%, the mean's does not"));
  EXPECT_EQ(judged(NAN, NAN, 1.0, 0.9, 1.1).verdict, Verdict::too_few_runs);
}

TEST(Verdict, WithTooFewRoundsForTheRobustIntervalTheMeansStillNameAClearDifference) {
  // Three rounds of start-up, 160 times slower: the signed-rank interval
  // needs six, the means' interval and Welch's test show it.
  const std::vector<double> host = {0.0034, 0.0040, 0.0029}, docker = {0.56, 0.54, 0.58};
  const std::vector<int> rounds = {1, 2, 3};
  const Overhead o = compare_figures("docker", {docker, rounds}, {host, rounds}, ComparisonWording::overhead);
  EXPECT_FALSE(o.robust.bounded());
  EXPECT_EQ(o.verdict, Verdict::slower);
  EXPECT_THAT(o.verdict_text, HasSubstr("the verdict rests on the means' interval"));
  EXPECT_THAT(o.verdict_text, HasSubstr("give --runs 6 or more"));
}

TEST(Verdict, TooFewRunsSaysCannotTellYetAndNeverNoDifference) {
  // Issue 35 item 5: two rounds, 9 times slower, read "the means' shows no
  // difference (... Welch p = 0.00022)".
  // The host's two runs far apart: with one degree of freedom the means'
  // interval is unbounded, while Welch's test is small.
  const std::vector<double> host = {0.008, 0.014}, docker = {0.0905, 0.0912};
  const std::vector<int> rounds = {1, 2};
  const Overhead o = compare_figures("docker", {docker, rounds}, {host, rounds}, ComparisonWording::overhead);
  ASSERT_EQ(o.verdict, Verdict::too_few_runs);
  EXPECT_THAT(o.verdict_text, HasSubstr("cannot tell yet: +"));
  EXPECT_THAT(o.verdict_text, HasSubstr("from 2 runs"));
  EXPECT_THAT(o.verdict_text, Not(HasSubstr("no difference")));
  if (o.estimate.test.p_value < 0.05) {
    EXPECT_THAT(o.verdict_text, HasSubstr("the means alone say slower"));
  }
  EXPECT_EQ(short_verdict_words(o, ComparisonWording::overhead),
            fmt::format("cannot tell yet: 2 runs; give --runs {}", o.runs_needed));
  // Where the means show nothing either, that is what it says.
  const std::vector<double> a = {1.0, 1.2}, b = {1.1, 1.0};
  const Overhead unclear = compare_figures("docker", {a, rounds}, {b, rounds}, ComparisonWording::overhead);
  ASSERT_EQ(unclear.verdict, Verdict::too_few_runs);
  EXPECT_THAT(unclear.verdict_text, Not(HasSubstr("no difference")));
  EXPECT_THAT(unclear.verdict_text, AnyOf(HasSubstr("nor can the means tell"), HasSubstr("too few for a confidence")));
}

TEST(Verdict, EquivalenceNeedsBothIntervalsWithinTheMargin) {
  const Overhead same = judged(0.99, 1.015, 1.0, 0.985, 1.02);
  EXPECT_EQ(same.verdict, Verdict::equivalent);
  EXPECT_THAT(same.verdict_text, HasSubstr("no overhead above 2% (equivalence at 95%: 95% CI -1.0% .. +1.5%; mean"));
  EXPECT_EQ(short_verdict_words(same, ComparisonWording::overhead), "no overhead above 2%");
  EXPECT_EQ(judged(0.99, 1.015, 1.0, 0.985, 1.02, RatioInterval::bounded, ComparisonWording::difference)
                .verdict_text.rfind("no difference above 2%", 0),
            0u);
  // The robust interval within +-2%, the mean's not: not shown.
  const Overhead wide_mean = judged(0.99, 1.015, 1.01, 0.96, 1.09);
  EXPECT_EQ(wide_mean.verdict, Verdict::inconclusive);
  EXPECT_NEAR(wide_mean.not_ruled_out, 0.09, 1e-12);
  EXPECT_THAT(wide_mean.verdict_text, HasSubstr("no measurable overhead: "));
  EXPECT_THAT(wide_mean.verdict_text, HasSubstr("but this run cannot rule out up to +9.0%"));
  EXPECT_EQ(short_verdict_words(wide_mean, ComparisonWording::overhead),
            "none measurable, up to +9.0% not ruled out");
  // A wider margin turns the same intervals into equivalence.
  Overhead five = wide_mean;
  five.margin = 0.10;
  conclude(five, ComparisonWording::overhead);
  EXPECT_EQ(five.verdict, Verdict::equivalent);
  EXPECT_THAT(five.verdict_text, HasSubstr("no overhead above 10%"));
}

TEST(Verdict, TheMinimumDetectableEffectScalesTheRobustHalfWidth) {
  // Half-width 2%: (1.96 + 0.84) / 1.96 x 2% = 2.86%.
  EXPECT_NEAR(judged(0.98, 1.02, 1.0, 0.99, 1.01).min_detectable, 0.02 * (1.959964 + 0.841621) / 1.959964, 1e-9);
  // Both intervals must exclude 1 for a verdict: the wider one sets it.
  EXPECT_NEAR(judged(0.98, 1.02, 1.0, 0.97, 1.03).min_detectable, 0.03 * (1.959964 + 0.841621) / 1.959964, 1e-9);
}

TEST(Verdict, NeverPrintsAnImpossibleBound) {
  // Issue 18: `compare` showed "95% CI -265.7% .. +203.4%"; no ratio of
  // times is below -100%. The interval is said to reach zero instead.
  const Overhead reaching = judged(0.95, 1.3, 1.2, -1.657, 3.034, RatioInterval::reaches_zero);
  EXPECT_EQ(reaching.verdict, Verdict::inconclusive);
  EXPECT_THAT(reaching.verdict_text, HasSubstr("95% CI includes ratios <= 0 .. +203.4%"));
  EXPECT_THAT(reaching.verdict_text, Not(HasSubstr("-265")));
  EXPECT_THAT(reaching.verdict_text, HasSubstr("cannot bound it (give --runs 7 or more)"));
  const Overhead unbounded = judged(0.95, 1.3, 1.2, NAN, NAN, RatioInterval::unbounded);
  EXPECT_THAT(unbounded.verdict_text, HasSubstr("95% CI unbounded: with 5 runs the baseline's mean is too uncertain"));
  EXPECT_THAT(judged(0.95, 1.3, 1.2, NAN, NAN, RatioInterval::unbounded, ComparisonWording::difference).verdict_text,
              AllOf(HasSubstr("A's mean"), Not(HasSubstr("baseline"))));
}

TEST(Verdict, PairsRunsByRoundWithinARun) {
  // Round effects shared by both environments cancel in the per-round
  // ratios: docker is 3% slower in every round, while rounds differ by 20%.
  std::vector<double> host, docker;
  std::vector<int> rounds;
  for (int r = 1; r <= 12; ++r) {
    const double round_effect = 1 + 0.2 * ((r * 5) % 7) / 7.0;
    host.push_back(0.2 * round_effect);
    docker.push_back(0.2 * round_effect * (1.03 + 0.001 * (r % 3)));
    rounds.push_back(r);
  }
  const Overhead paired = compare_figures("docker", {docker, rounds}, {host, rounds}, ComparisonWording::overhead);
  EXPECT_TRUE(paired.robust.paired);
  EXPECT_EQ(paired.robust.pairs, 12u);
  EXPECT_GT(paired.robust.ci95_low, 1);
  EXPECT_NEAR(paired.robust.ratio, 1.031, 0.002);
  EXPECT_LT(paired.robust.half_width(), 0.005);
  // The means' interval, blind to the rounds, does not exclude 1: the
  // verdict claims nothing, and says what the paired interval alone shows.
  EXPECT_EQ(paired.verdict, Verdict::inconclusive);
  EXPECT_THAT(paired.verdict_text, HasSubstr("the robust interval alone says slower by 3.1%"));
  // The same values as two independent samples cannot see it.
  const Overhead unpaired = compare_figures("docker", {docker, {}}, {host, {}}, ComparisonWording::overhead);
  EXPECT_FALSE(unpaired.robust.paired);
  EXPECT_NE(unpaired.verdict, Verdict::slower);
  // A round only one side measured is left out of the pairs.
  std::vector<int> shifted = rounds;
  shifted.back() = 99;
  EXPECT_EQ(compare_figures("docker", {docker, shifted}, {host, rounds}, ComparisonWording::overhead).robust.pairs, 11u);
}

}  // namespace
}  // namespace dlcbench
