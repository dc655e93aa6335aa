// `run --resume`: which launches are missing, reading the plan back from the
// manifest, the binary check, the folder lock, and how the analysis treats
// launches cut off by a kill and failures measured again.
#include "orchestrator/resume.h"

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "core/errors.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

Plan two_env_plan(int runs = 2) {
  Plan plan;
  CaseSpec fcn5;
  fcn5.batch = 8;
  CaseSpec gemm;
  gemm.workload = "gemm";
  gemm.backend = "none";
  gemm.variant = "sgemm";
  gemm.size = 64;
  plan.cases = {fcn5, gemm};
  plan.environments = {parse_environment_request("host"), parse_environment_request("host#2")};
  plan.runs = runs;
  plan.seed = 7;
  return plan;
}

json sample(const LaunchKey& k, const std::string& phase, double seconds) {
  return {{"type", "sample"}, {"round", k.round}, {"case", k.case_id}, {"env", k.env},
          {"phase", phase},   {"seconds", seconds}};
}
json launch(const LaunchKey& k, bool ok) {
  return {{"type", "launch"}, {"round", k.round}, {"case", k.case_id}, {"env", k.env}, {"ok", ok},
          {"cause", ok ? "" : "worker killed by signal 11"}};
}

TEST(Resume, MissingLaunchesAreThoseWithoutASuccessfulLaunchRecordInTheRecordedOrder) {
  const Plan plan = two_env_plan();
  const std::string fcn5 = plan.cases[0].id(), gemm = plan.cases[1].id();
  // Round 1 runs host#2 first, round 2 host first.
  const std::vector<std::vector<std::size_t>> orders = {{1, 0}, {0, 1}};
  std::vector<json> records;
  records.push_back({{"type", "round"}, {"round", 1}});
  for (const auto& key : {LaunchKey{1, fcn5, "host#2"}, LaunchKey{1, fcn5, "host"}}) {
    records.push_back(sample(key, "measured", 1.0));
    records.push_back(launch(key, true));
  }
  const LaunchKey failed{1, gemm, "host#2"};
  records.push_back(launch(failed, false));
  records.push_back(launch(failed, true));  // a later success makes a failure good
  const LaunchKey failing{1, gemm, "host"};
  records.push_back(launch(failing, false));
  const LaunchKey cut{2, fcn5, "host"};
  records.push_back(sample(cut, "warmup", 1.0));
  records.push_back(sample(cut, "measured", 1.0));  // then SIGKILL: no launch record

  const ResumeState state = find_missing_launches(plan, orders, records);
  EXPECT_EQ(state.rounds, 2);
  EXPECT_EQ(state.measured.size(), 3u);
  EXPECT_THAT(state.missing, ElementsAre(failing, cut, LaunchKey{2, fcn5, "host#2"}, LaunchKey{2, gemm, "host"},
                                         LaunchKey{2, gemm, "host#2"}));
  EXPECT_THAT(state.cut_off, ElementsAre(cut));
  EXPECT_THAT(state.failed, ElementsAre(failing));
}

TEST(Resume, ACompleteRunHasNothingMissing) {
  const Plan plan = two_env_plan(1);
  std::vector<json> records;
  for (const auto& c : plan.cases)
    for (const auto& e : plan.environments) records.push_back(launch({1, c.id(), e.text}, true));
  const auto state = find_missing_launches(plan, {{0, 1}}, records);
  EXPECT_TRUE(state.missing.empty());
  EXPECT_EQ(state.measured.size(), 4u);
}

TEST(Resume, AnUntilCvRunResumesUpToTheRoundsItReached) {
  Plan plan = two_env_plan(2);
  std::vector<json> records = {{{"type", "round"}, {"round", 4}}};
  EXPECT_EQ(recorded_rounds(plan, records), 2);  // a fixed run: --runs, whatever the lines say
  plan.until_cv = 0.02;
  plan.max_runs = 6;
  EXPECT_EQ(recorded_rounds(plan, records), 4);
  EXPECT_EQ(recorded_rounds(plan, {}), 2);
  records.push_back({{"type", "round"}, {"round", 9}});  // beyond --max-runs: not trusted
  EXPECT_EQ(recorded_rounds(plan, records), 6);
}

// As `run --resume` reads a plan: the manifest's one reader, then the
// checks that it can be measured further.
Plan plan_from(const json& recorded) { return plan_to_resume(read_recorded_plan(recorded)); }

TEST(Resume, ThePlanReadsBackFromTheManifestAsWritten) {
  Plan plan = two_env_plan(3);
  plan.environments.push_back(parse_environment_request("docker:cpus=1,memory=4g"));
  plan.until_cv = 0.05;
  plan.max_runs = 9;
  plan.data = "/srv/data";
  plan.case_timeout_seconds = 60;
  plan.baseline = "host#2";
  plan.allow_mismatch = true;
  const json written = plan;
  const Plan read = plan_from(written);
  EXPECT_EQ(json(read), written);
  EXPECT_EQ(read.environments[2].options.at("cpus"), "1");
  EXPECT_EQ(read.environments[1].text, "host#2");
}

TEST(Resume, APlanThisVersionReadsDifferentlyIsRefused) {
  json written = two_env_plan();
  written["cases"][0]["id"] = "fcn5/torch/cpu/b999";
  EXPECT_THROW(
      {
        try {
          plan_from(written);
        } catch (const std::runtime_error& e) {
          EXPECT_THAT(e.what(), HasSubstr("fcn5/torch/cpu/b999"));
          throw;
        }
      },
      std::runtime_error);
  json no_runs = two_env_plan();
  no_runs.erase("runs");
  EXPECT_THROW(plan_from(no_runs), std::runtime_error);
  json bad_env = two_env_plan();
  bad_env["environments"][0] = "vmware";
  EXPECT_THROW(plan_from(bad_env), std::runtime_error);
  // Numbers a hand edit can leave: each refused, none converted unchecked.
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{
           {"runs", 3.5}, {"runs", 1e300}, {"runs", -2}, {"max_runs", "9"}, {"seed", -1.5},
           {"case_timeout_seconds", -1}, {"case_timeout_seconds", 0}, {"case_timeout_seconds", 1e300}}) {
    json edited = two_env_plan();
    edited[key] = value;
    EXPECT_THROW(plan_from(edited), std::runtime_error) << key << " = " << value.dump();
  }
}

TEST(Resume, TheBinaryMustBeTheOneThatStartedTheRun) {
  const json manifest = {{"orchestrator", {{"binary_sha256", "aaa"}}}};
  EXPECT_EQ(binary_difference(manifest, "aaa"), "");
  EXPECT_THAT(binary_difference(manifest, "bbb"), AllOf(HasSubstr("aaa"), HasSubstr("bbb"), HasSubstr("same bits")));
  EXPECT_THAT(binary_difference(json::object(), "bbb"), HasSubstr("does not record"));
}

TEST(Resume, ARunFolderIsLockedWhileARunWritesToIt) {
  testing::TempDir dir;
  {
    const RunFolderLock first(dir.path());
    EXPECT_THROW(RunFolderLock second(dir.path()), UsageError);
  }
  EXPECT_NO_THROW(RunFolderLock again(dir.path()));
}

// The analysis of a run killed mid-launch and resumed: the cut-off samples
// and the failure made good do not count; run values stay in round order.
TEST(Resume, TheAnalysisCountsEachLaunchOnce) {
  const std::string id = "fcn5/torch/cpu/b8";
  const json manifest = {{"plan", {{"baseline", "host"}, {"environments", {"host"}}, {"cases", {{{"id", id}}}}}}};
  std::vector<json> records;
  auto measured_launch = [&](int round, std::vector<double> seconds, bool ok = true) {
    const LaunchKey key{round, id, "host"};
    records.push_back(sample(key, "warmup", 9.0));
    for (double s : seconds) records.push_back(sample(key, "measured", s));
    records.push_back(launch(key, ok));
  };
  measured_launch(1, {1.0, 1.0});
  measured_launch(2, {5.0}, false);                 // failed
  records.push_back(sample({3, id, "host"}, "warmup", 9.0));
  records.push_back(sample({3, id, "host"}, "measured", 100.0));  // cut off by SIGKILL
  records.push_back({{"type", "resume"}});
  measured_launch(3, {3.0, 3.0});  // the resumed session: round 3 before round 2
  measured_launch(2, {2.0, 2.0});

  const Analysis a = analyze(manifest, records);
  const auto& host = a.cases.at(0).envs.at(0);
  EXPECT_THAT(host.run_values, ElementsAre(1.0, 2.0, 3.0));
  EXPECT_EQ(host.batch_seconds.size(), 6u);
  EXPECT_EQ(host.warmup_seconds.size(), 3u);
  EXPECT_EQ(host.failed_launches, 0);
  EXPECT_THAT(::testing::PrintToString(a.notes),
              AllOf(HasSubstr("round 3: 2 samples of a launch cut off before the run was resumed"),
                    HasSubstr("round 2 failed (worker killed by signal 11) and was measured again")));
}

TEST(Resume, WithoutAResumeRecordAnUnfinishedLaunchStaysOut) {
  const std::string id = "fcn5/torch/cpu/b8";
  const json manifest = {{"plan", {{"baseline", "host"}, {"environments", {"host"}}, {"cases", {{{"id", id}}}}}}};
  const std::vector<json> records = {sample({1, id, "host"}, "warmup", 9.0), sample({1, id, "host"}, "measured", 1.0)};
  const Analysis a = analyze(manifest, records);
  EXPECT_TRUE(a.cases[0].envs[0].run_values.empty());
  EXPECT_EQ(a.cases[0].envs[0].warmup_seconds.size(), 1u);
  EXPECT_THAT(::testing::PrintToString(a.notes), HasSubstr("did not finish"));
}

}  // namespace
}  // namespace dlcbench
