#include "orchestrator/plan.h"
#include "orchestrator/scheduler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analysis/overhead.h"
#include "cli/worker_options.h"
#include "core/errors.h"
#include "runtimes/environment.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

using testing::error_of;
using testing::TempDir;

TEST(Plan, SplitsLists) {
  EXPECT_EQ(split_list("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
}

TEST(Plan, ExpandsBatchSweepsAndUsesTheWorkloadDefault) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].batch, 64);
  EXPECT_EQ(cases[0].id(), "fcn5/torch/cpu/b64");
  r.batches = {64, 128, 256};
  EXPECT_EQ(expand_cases(r).size(), 3u);
}

TEST(Plan, UnknownNamesListTheValidOnes) {
  PlanRequest r;
  r.workloads = {"vgg"};
  r.backends = {"torch"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("unknown workload 'vgg': valid workloads are fcn5"));
  r.workloads = {"fcn5"};
  r.backends = {"caffe"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("valid back ends are torch"));
  r.backends = {"torch"};
  r.devices = {"tpu"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("does not support device 'tpu'"));
}

TEST(Plan, RejectsNonsenseCounts) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  r.batches = {0};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("batch size 0"));
  r.batches = {};
  r.iters = 0;
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("--iters"));
}

TEST(Plan, RoundOrdersArePermutationsReproducibleFromTheSeed) {
  auto a = round_orders(3, 50, 123), b = round_orders(3, 50, 123), c = round_orders(3, 50, 124);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  bool some_differ = false;
  for (const auto& order : a) {
    auto sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2}));
    some_differ |= order != a.front();
  }
  EXPECT_TRUE(some_differ);
}

TEST(Plan, StartupIsOneCaseWithItsOwnCountsWhateverTheBackEndsAndBatches) {
  PlanRequest r;
  r.workloads = {"startup", "fcn5"};
  r.backends = {"torch"};
  r.batches = {8, 16};
  r.starts = 7;
  auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].id(), "startup");
  EXPECT_EQ(cases[0].iters, 7);
  EXPECT_EQ(cases[0].warmup, 1);
  EXPECT_EQ(cases[1].id(), "fcn5/torch/cpu/b8");
  r.starts = 0;
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("--starts must be at least 1"));
}

// Rounds 1..n.
std::vector<int> rounds_of(const std::vector<double>& values) {
  std::vector<int> rounds(values.size());
  std::iota(rounds.begin(), rounds.end(), 1);
  return rounds;
}

// One case: the baseline and one environment with these values, round by round.
std::vector<std::vector<CellRuns>> one_case(std::vector<double> base, std::vector<double> other,
                                            std::size_t disturbed = 0) {
  // The disturbed runs come after the undisturbed ones, in rounds of their own.
  std::vector<double> disturbed_values(disturbed, 1.0);
  std::vector<int> disturbed_rounds(disturbed);
  std::iota(disturbed_rounds.begin(), disturbed_rounds.end(), static_cast<int>(other.size()) + 1);
  return {{{"fcn5", "host", true, true, base, rounds_of(base), {}, {}},
           {"fcn5", "docker", false, true, other, rounds_of(other), disturbed_values, disturbed_rounds}}};
}

TEST(StoppingRule, UntilCvMetOnlyWhenEveryCaseAndEnvironmentIsAtOrBelowTheTarget) {
  const StoppingRule rule{2, 10, 0.02, 0, 0};
  // CV of {1, 1.02}: stddev 0.01414 / mean 1.01 = 1.40%.
  RoundDecision d = decide_after_round(rule, 2, 0, 1, one_case({1.0, 1.02}, {2.0, 2.0}));
  EXPECT_FALSE(d.add_round);
  EXPECT_EQ(d.stop, StopReason::until_cv_reached);
  EXPECT_NEAR(d.highest_cv, 0.014142 / 1.01, 1e-5);
  // CV of {1, 1.2}: 0.1414 / 1.1 = 12.9%.
  d = decide_after_round(rule, 2, 0, 1, one_case({1.0, 1.02}, {1.0, 1.2}));
  EXPECT_TRUE(d.add_round);
  EXPECT_TRUE(d.cv_unmet);
  EXPECT_NEAR(d.highest_cv, 0.141421 / 1.1, 1e-5);
  // A case whose every launch failed has no figure to improve: left out.
  d = decide_after_round(rule, 2, 0, 1, one_case({1.0, 1.02}, {}));
  EXPECT_FALSE(d.add_round);
  // Not past --max-runs.
  d = decide_after_round(rule, 10, 0, 1, one_case({1.0, 1.02}, {1.0, 1.2}));
  EXPECT_FALSE(d.add_round);
  EXPECT_EQ(d.stop, StopReason::max_runs);
}

// Issue 35, item 17: a run without --precision said "every target met".
TEST(StoppingRule, WithoutATargetItStopsAtThePlannedRounds) {
  const RoundDecision d = decide_after_round({2, 10, 0, 0, 0}, 2, 0, 1, one_case({1.0, 1.02}, {2.0, 2.0}));
  EXPECT_FALSE(d.add_round);
  EXPECT_EQ(d.stop, StopReason::planned_rounds);
  EXPECT_STREQ(stop_reason_text(d.stop), "the planned rounds (--runs) done");
}

TEST(StoppingRule, ReplacesDisturbedRunsUpToRuns) {
  const StoppingRule rule{3, 5, 0, 0, 0};
  // Two undisturbed runs and one disturbed: one short of --runs.
  RoundDecision d = decide_after_round(rule, 3, 0, 1, one_case({1, 1.1, 1.2}, {1, 1.1}, 1));
  EXPECT_TRUE(d.add_round);
  EXPECT_EQ(d.short_of_runs, 1u);
  // Replaced: three undisturbed runs.
  d = decide_after_round(rule, 4, 0, 1, one_case({1, 1.1, 1.2}, {1, 1.1, 1.05}, 1));
  EXPECT_FALSE(d.add_round);
  // Short because a launch failed, none disturbed: not replaced.
  d = decide_after_round(rule, 3, 0, 1, one_case({1, 1.1, 1.2}, {1, 1.1}, 0));
  EXPECT_FALSE(d.add_round);
  // A dropped environment is not waited for.
  auto cells = one_case({1, 1.1, 1.2}, {1, 1.1}, 1);
  cells[0][1].live = false;
  EXPECT_FALSE(decide_after_round(rule, 3, 0, 1, cells).add_round);
}

TEST(StoppingRule, PrecisionStopsWhenEveryTypicalIntervalIsNarrowEnough) {
  std::vector<double> base, same, shifted;
  for (int i = 0; i < 12; ++i) {
    base.push_back(1.0 + 0.01 * ((i * 7) % 12));
    same.push_back(1.0 + 0.01 * ((i * 5) % 12) + 0.0001 * i);
  }
  // Per-round ratios spread by several percent: the paired Hodges-Lehmann
  // interval of 12 rounds is a few percent wide.
  const double half_width = robust_ratio({same, rounds_of(same)}, {base, rounds_of(base)}).half_width();
  ASSERT_GT(half_width, 0.01);
  ASSERT_LT(half_width, 0.08);
  RoundDecision d = decide_after_round({12, 100, 0, half_width / 2, 0}, 12, 0, 1, one_case(base, same));
  EXPECT_TRUE(d.add_round);
  EXPECT_EQ(d.above_precision, 1u);
  EXPECT_NEAR(d.widest_half_width, half_width, 1e-12);
  EXPECT_EQ(d.widest, "fcn5 docker");
  d = decide_after_round({12, 100, 0, half_width * 1.01, 0}, 12, 0, 1, one_case(base, same));
  EXPECT_FALSE(d.add_round);
  EXPECT_EQ(d.stop, StopReason::precision_reached);
  // Two rounds give no interval: unmet, and said so.
  d = decide_after_round({2, 100, 0, 0.5, 0}, 2, 0, 1, one_case({1, 1.1}, {1, 1.1}));
  EXPECT_TRUE(d.add_round);
  EXPECT_TRUE(std::isnan(d.widest_half_width));
}

// The half-width the rule reads is the report's: disturbed runs count when
// the analysis keeps them (too few undisturbed to make up --runs), and not
// once replacements have.
TEST(StoppingRule, PrecisionReadsTheRunsTheAnalysisWillCount) {
  std::vector<std::vector<CellRuns>> cells =
      one_case({1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01}, {1.0, 1.01, 0.98, 1.02});
  cells[0][1].disturbed_values = {1.5, 1.6, 1.4, 1.55};
  cells[0][1].disturbed_rounds = {5, 6, 7, 8};
  // --runs 8: 4 undisturbed do not make it up, so all 8 count.
  const CountedRuns kept = counted_runs(cells[0][1], 8);
  EXPECT_EQ(kept.rounds, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  // --runs 4: the 4 undisturbed do, and the disturbed are set aside.
  EXPECT_EQ(counted_runs(cells[0][1], 4).values, (std::vector<double>{1.0, 1.01, 0.98, 1.02}));
  const double with_disturbed =
      robust_ratio({kept.values, kept.rounds}, {cells[0][0].run_values, cells[0][0].rounds}).half_width();
  ASSERT_TRUE(std::isfinite(with_disturbed));
  ASSERT_GT(with_disturbed, 0.1);  // the slow disturbed runs widen it
  const RoundDecision d = decide_after_round({8, 100, 0, 0.5, 0}, 8, 0, 1, cells);
  EXPECT_TRUE(d.add_round);  // the disturbed runs still to replace
  EXPECT_EQ(d.short_of_runs, 1u);
  EXPECT_NEAR(d.widest_half_width, with_disturbed, 1e-12);
}

TEST(StoppingRule, MaxTimeKeepsTheNextRoundInside) {
  const StoppingRule rule{2, 100, 0, 0.0001, 600};
  const auto cells = one_case({1, 1.1, 1.2}, {1, 1.1, 1.3});
  // 500 s gone, rounds of 90 s: the next would end at 590 s, inside.
  EXPECT_TRUE(decide_after_round(rule, 3, 500, 90, cells).add_round);
  // Rounds of 120 s: it would end at 620 s, after --max-time.
  const RoundDecision d = decide_after_round(rule, 3, 500, 120, cells);
  EXPECT_FALSE(d.add_round);
  EXPECT_EQ(d.stop, StopReason::max_time);
  EXPECT_STREQ(stop_reason_text(d.stop), "--max-time reached");
}

TEST(Plan, ACaseListedTwiceIsAnError) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  r.batches = {8, 8};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("case fcn5/torch/cpu/b8 is listed twice"));
}

TEST(Plan, WorkloadListKeepsMicroBenchmarkOptionsTogether) {
  EXPECT_EQ(split_workload_list("fcn5,io-seq:size=1g,block=4m,stream/triad,gemm:n=512"),
            (std::vector<std::string>{"fcn5", "io-seq:size=1g,block=4m", "stream/triad", "gemm:n=512"}));
  // A key=value with nothing before it to belong to stays an item (and is
  // then reported as an unknown workload).
  EXPECT_EQ(split_workload_list("n=5,fcn5"), (std::vector<std::string>{"n=5", "fcn5"}));
}

TEST(Plan, MicroBenchmarksExpandIntoOneCasePerVariantModeAndPath) {
  TempDir dir;
  PlanRequest r;
  r.workloads = split_workload_list("gemm:n=256,hpl:n=300,io-seq:size=4m,block=1m,io-lat:size=1m,stream/triad:n=1000");
  r.backends = {"torch"};
  r.io_targets = {"rootfs", dir.path().string()};
  r.threads = 2;
  const auto cases = expand_cases(r);
  std::vector<std::string> ids;
  for (const auto& c : cases) ids.push_back(c.id());
  const std::string folder = dir.path().string();
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "gemm/sgemm/n256", "gemm/dgemm/n256", "hpl/n300",
                     "io-seq/write/direct/bs1M/4M@rootfs", "io-seq/read/direct/bs1M/4M@rootfs",
                     "io-seq/write/buffered/bs1M/4M@rootfs", "io-seq/read/buffered/bs1M/4M@rootfs",
                     "io-seq/write/direct/bs1M/4M@" + folder, "io-seq/read/direct/bs1M/4M@" + folder,
                     "io-seq/write/buffered/bs1M/4M@" + folder, "io-seq/read/buffered/bs1M/4M@" + folder,
                     "io-lat/bs4K/1M@rootfs", "io-lat/bs4K/1M@" + folder, "stream/triad/n1000"}));
  // Each workload's own counts unless --warmup/--iters are given.
  EXPECT_EQ(cases[0].iters, 5);
  EXPECT_EQ(cases[11].iters, 200);
  EXPECT_EQ(cases[11].warmup, 10);
  EXPECT_EQ(cases[0].threads, 2);
  r.iters = 3;
  EXPECT_EQ(expand_cases(r)[11].iters, 3);
  // The worker gets the case itself, typed: everything but the path, which
  // the environment adds; and reads back the case that was planned.
  const auto args = cases[4].worker_args();
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[1], "--case");
  const auto handed = nlohmann::json::parse(args[2]);
  EXPECT_EQ(handed["size"], 4194304);
  EXPECT_EQ(handed["block"], 1048576);
  EXPECT_EQ(handed["io_mode"], "direct");
  EXPECT_EQ(handed["variant"], "read");
  EXPECT_FALSE(handed.contains("path"));
  EXPECT_EQ(cli::worker_case_from_json(args[2]).id(), cases[4].id());
  // Case JSON round-trips, so the analysis reads back what was planned.
  EXPECT_EQ(nlohmann::json(cases[4]).get<CaseSpec>().id(), cases[4].id());
}

TEST(Plan, EveryPlannedCaseIsAcceptedByTheWorkersOptions) {
  // What `run` plans must pass the worker's own option checks: a micro-
  // benchmark's batch of 0 once met the worker's --batch range and every
  // micro-benchmark launch exited with status 2.
  PlanRequest r;
  r.workloads = split_workload_list("fcn5,alexnet,resnet56,lstm,gemm,hpl,hpcg,stream,io-seq,io-lat,gpu-gemm,gpu-copy");
  r.backends = {"torch", "reference"};
  r.devices = {"cpu", "gpu"};
  r.threads = 2;
  r.io_targets = {"tmpfs"};
  CLI::App app;
  cli::WorkerOptions options;
  CLI::App* worker = cli::add_worker_options(app, options);
  int accepted = 0;
  worker->callback([&] { ++accepted; });
  const auto cases = expand_cases(r);
  for (const auto& c : cases) {
    auto args = c.worker_args();
    args.insert(args.end(), {"--data", "/data"});
    if (!c.io_target.empty()) args.insert(args.end(), {"--path", "/tmp"});
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    EXPECT_NO_THROW(app.parse(reversed)) << fmt::format("{}", fmt::join(args, " "));
  }
  EXPECT_EQ(accepted, static_cast<int>(cases.size()));
}

TEST(Plan, TheManifestRecordsWhatEachEnvironmentsOptionsChange) {
  Plan p;
  p.cases = {CaseSpec{}};
  p.environments = parse_environment_list("host,docker:cpus=1,runc:cpuset=0");
  const nlohmann::json j = p;
  EXPECT_EQ(j["requested_fields"]["host"], nlohmann::json::array());
  EXPECT_EQ(j["requested_fields"]["docker:cpus=1"], nlohmann::json({"/cgroup/cpu_quota"}));
  EXPECT_THAT(j["requested_fields"]["runc:cpuset=0"].get<std::vector<std::string>>(),
              ::testing::Contains("/blas/threads"));
  // A manifest written before the plan recorded them gets them from its labels.
  nlohmann::json older = {{"plan", j}};
  older["plan"].erase("requested_fields");
  const RecordedPlan read = read_recorded_plan(older["plan"]);
  EXPECT_EQ(read.requested_fields.at("docker:cpus=1"), std::vector<std::string>{"/cgroup/cpu_quota"});
}

TEST(Plan, ALabelNamesAnEnvironmentAndTheManifestKeepsWhatWasWritten) {
  // label=NAME: a series keeps its name when the options behind it change.
  Plan p;
  p.cases = {CaseSpec{}};
  p.environments = parse_environment_list("host,docker:cpus=1.5,label=docker");
  ASSERT_EQ(p.environments.size(), 2u);
  const EnvironmentRequest& docker = p.environments[1];
  EXPECT_EQ(docker.text, "docker");
  EXPECT_EQ(docker.written, "docker:cpus=1.5,label=docker");
  EXPECT_EQ(docker.options, (std::map<std::string, std::string>{{"cpus", "1.5"}}));
  EXPECT_DOUBLE_EQ(*docker.container.cpus, 1.5);
  const nlohmann::json j = p;
  EXPECT_EQ(j["environments"], nlohmann::json({"host", "docker"}));
  EXPECT_EQ(j["environments_written"]["docker"], "docker:cpus=1.5,label=docker");
  EXPECT_EQ(j["requested_fields"]["docker"], nlohmann::json({"/cgroup/cpu_quota"}));
  // A resume parses what was written, under the same label.
  const Plan resumed = plan_to_resume(read_recorded_plan(j));
  EXPECT_EQ(resumed.environments[1].text, "docker");
  EXPECT_DOUBLE_EQ(*resumed.environments[1].container.cpus, 1.5);
  // Two environments under one label, or a label that is no name, are refused.
  EXPECT_THAT(testing::error_of<UsageError>([] { parse_environment_list("docker:label=a,runc:label=a"); }),
              HasSubstr("are both labelled a"));
  EXPECT_THAT(testing::error_of<UsageError>([] { parse_environment_list("docker:label=a/b"); }),
              HasSubstr("give a name of letters, digits"));
}

TEST(Plan, StreamSizesItselfFromTheCacheUnlessTold) {
  PlanRequest r;
  r.workloads = {"stream/copy"};
  r.backends = {"torch"};
  const auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_GE(cases[0].size, 10'000'000);  // STREAM's floor
}

TEST(Plan, BadMicroBenchmarkRequestsAreRefusedBeforeAnythingRuns) {
  PlanRequest r;
  r.backends = {"torch"};
  auto error = [&](const std::string& workloads) {
    r.workloads = split_workload_list(workloads);
    return error_of<UsageError>([&] { expand_cases(r); });
  };
  EXPECT_THAT(error("gemm/hgemm"), HasSubstr("gemm/hgemm: valid variants are sgemm, dgemm"));
  EXPECT_THAT(error("gemm:size=5"), HasSubstr("gemm: unknown option 'size=5': valid options are n="));
  EXPECT_THAT(error("hpl:n=-4"), HasSubstr("hpl: n=-4 is not a positive whole number"));
  EXPECT_THAT(error("io-seq:block=1000"), HasSubstr("not a multiple of 512"));
  EXPECT_THAT(error("io-seq:size=3m,block=2m"), HasSubstr("whole number of blocks"));
  EXPECT_THAT(error("io-seq:mode=fast"), HasSubstr("mode=fast is not direct, buffered or both"));
  EXPECT_THAT(error("fcn5:batch=3"), HasSubstr("only the micro-benchmarks"));
  // A matrix that cannot fit in memory: refused with the sizes, before any launch.
  EXPECT_THAT(error("gemm/dgemm:n=10000000"), HasSubstr("gemm/dgemm/n10000000 needs"));
  EXPECT_THAT(error("gemm/dgemm:n=10000000"), HasSubstr("give a smaller size (gemm:n=...)"));
  // Paths: missing, a file, too small.
  r.workloads = {"io-lat"};
  r.io_targets = {"/nonexistent/dlcbench"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("the folder does not exist"));
  r.io_targets = {"/etc/hostname"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("not a folder"));
  r.io_targets = {"relative/dir"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("give an absolute folder"));
  TempDir dir;
  r.io_targets = {dir.path().string()};
  r.workloads = {"io-seq:size=900t,block=1m"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("free some space"));
}

}  // namespace
}  // namespace dlcbench
