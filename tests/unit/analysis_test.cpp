#include "analysis/analysis.h"

#include <cmath>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlcbench {
namespace {

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

TEST(Analysis, AManifestWithoutRequestedFieldsAsksForNothing) {
  // An older manifest has no plan.requested_fields: read as it is, nothing
  // is asked for; `report` and `run` fill them in from the labels
  // (orchestrator/plan.h: read_plan_of_run, tested in plan_test).
  auto r = two_envs("docker:cpus=1", "/cgroup/cpu_quota", nullptr, 1.0);
  const Analysis a = analyze(manifest_with({"host", "docker:cpus=1"}), r);
  EXPECT_FALSE(a.cases[0].overheads.at(0).compared);
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

TEST(NullExperiment, FalseAlarmRateIsTheTestsFivePercent) {
  // 2000 seeded repetitions: a 5% test gives 100 +- 9.7 (binomial sd) false
  // alarms; 3 sd either side is 71..129. (Over 20,000 seeds the verdict says
  // "slower" or "faster" in 5.05%. Twenty repetitions are too few to test a
  // 5% rate: a correct test has 3 or more alarms in 20 with probability
  // 7.5%, and seeds 1..20 are such a draw, with 3.)
  int alarms = 0;
  for (std::uint64_t seed = 1000; seed < 3000; ++seed)
    alarms += is_significant(null_experiment(seed).cases[0].overheads[0].verdict);
  EXPECT_GE(alarms, 71);
  EXPECT_LE(alarms, 129);
}

// A comparison with the given interval, as compare_run_values words it.
Overhead judged(double ratio, double low, double high, RatioInterval interval, double p,
                ComparisonWording wording = ComparisonWording::overhead) {
  Overhead o;
  o.estimate = {ratio, low, high, 4, interval, {1, 10, p}};
  o.verdict = judge(o.estimate);
  o.runs_needed = 7;
  o.verdict_text = verdict_words(o, wording);
  return o;
}

TEST(Verdict, SaysWhatTheIntervalShows) {
  const auto b = RatioInterval::bounded;
  EXPECT_THAT(judged(1.05, 1.03, 1.07, b, 0.001).verdict_text, HasSubstr("slower by 5.0% (95% CI +3.0% .. +7.0%"));
  EXPECT_THAT(judged(0.9, 0.85, 0.95, b, 0.001).verdict_text, HasSubstr("faster by 10.0%"));
  const Overhead none = judged(1.01, 0.98, 1.04, b, 0.6);
  EXPECT_EQ(none.verdict, Verdict::no_measurable_overhead);
  EXPECT_THAT(none.verdict_text, HasSubstr("no measurable overhead (95% CI -2.0% .. +4.0%, within +-5%"));
  EXPECT_EQ(judged(1.01, 0.98, 1.04, b, 0.6, ComparisonWording::difference).verdict_text.rfind(
                "no measurable difference", 0),
            0u);
  const Overhead few = judged(1.01, NAN, NAN, RatioInterval::none, NAN);
  EXPECT_EQ(few.verdict, Verdict::too_few_runs);
  EXPECT_THAT(few.verdict_text, HasSubstr("too few runs"));
}

TEST(Verdict, NoMeasurableOverheadOnlyForAnIntervalWithinFivePercent) {
  // Issue 18: a start-up 7 times slower, 95% CI -31.9% .. +6173.1%, p = 0.053,
  // was "no measurable overhead". An interval that wide shows nothing either way.
  const Overhead wide = judged(6.8964, 0.681, 62.731, RatioInterval::bounded, 0.053);
  EXPECT_EQ(wide.verdict, Verdict::inconclusive);
  EXPECT_THAT(wide.verdict_text, HasSubstr("inconclusive: +589.6%"));
  EXPECT_THAT(wide.verdict_text, HasSubstr("wider than +-5%"));
  EXPECT_EQ(judged(1.0, 0.96, 1.051, RatioInterval::bounded, 0.9).verdict, Verdict::inconclusive);
  EXPECT_EQ(judged(1.0, 0.95, 1.05, RatioInterval::bounded, 0.9).verdict, Verdict::no_measurable_overhead);
}

TEST(Verdict, NeverPrintsAnImpossibleBound) {
  // Issue 18: `compare` showed "95% CI -265.7% .. +203.4%"; no ratio of
  // times is below -100%. The interval is said to reach zero instead.
  const Overhead reaching = judged(1.2, -1.657, 3.034, RatioInterval::reaches_zero, 0.4);
  EXPECT_EQ(reaching.verdict, Verdict::inconclusive);
  EXPECT_THAT(reaching.verdict_text, HasSubstr("95% CI includes ratios <= 0 .. +203.4%"));
  EXPECT_THAT(reaching.verdict_text, Not(HasSubstr("-265")));
  EXPECT_THAT(reaching.verdict_text, HasSubstr("give --runs 7 or more"));
  const Overhead unbounded = judged(1.2, NAN, NAN, RatioInterval::unbounded, 0.4);
  EXPECT_THAT(unbounded.verdict_text, HasSubstr("95% CI unbounded: with 5 runs the baseline's mean is too uncertain"));
  EXPECT_THAT(judged(1.2, NAN, NAN, RatioInterval::unbounded, 0.4, ComparisonWording::difference).verdict_text,
              AllOf(HasSubstr("A's mean"), Not(HasSubstr("baseline"))));
}

TEST(Verdict, OneBaselineIsJudgedAlikeForEveryEnvironment) {
  // Issue 18, as measured: 2 runs each; host CV 24%, docker CV 25% got an
  // interval, runc (CV 4%) and crun (CV 6%) "the baseline is too noisy".
  const std::vector<double> host = {0.10, 0.14};
  for (const std::vector<double>& other :
       {std::vector<double>{0.10, 0.145}, std::vector<double>{0.120, 0.127}, std::vector<double>{0.118, 0.128}}) {
    const Overhead o = compare_run_values("x", other, host, ComparisonWording::overhead);
    EXPECT_EQ(o.estimate.interval, RatioInterval::unbounded);
    EXPECT_THAT(o.verdict_text, HasSubstr("with 2 runs the baseline's mean is too uncertain to bound the ratio"));
    EXPECT_THAT(o.verdict_text, HasSubstr("give --runs 4 or more"));
  }
}

}  // namespace
}  // namespace dlcbench
