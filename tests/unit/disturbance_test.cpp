#include "analysis/disturbance.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/analysis.h"
#include "core/accounting.h"
#include "core/statistics.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using testing::TempDir;

// An accounting record as the scheduler completes it: the worker's, with
// the orchestrator's reading from outside.
json accounting_with_machine(double foreign_cpu, double steal, double phase = 4.0, int cpus = 2) {
  return {{"type", "accounting"},
          {"outside",
           {{"environment_cpu_seconds", 7.5},
            {"machine",
             {{"phase_seconds", phase},
              {"cpus", cpus},
              {"busy_seconds", 7.6 + foreign_cpu},
              {"steal_seconds", steal},
              {"orchestrator_cpu_seconds", 0.1},
              {"foreign_cpu_seconds", foreign_cpu}}}}}};
}

TEST(Disturbance, ForeignCpuAboveItsLimitDisturbsARun) {
  // 0.4 s of 8 CPU-seconds (4 s x 2 CPUs) = 5%, above 2%.
  const RunDisturbance d = assess_disturbance(accounting_with_machine(0.4, 0));
  EXPECT_TRUE(d.assessed);
  EXPECT_TRUE(d.disturbed());
  EXPECT_THAT(d.why(), HasSubstr("other processes used 5.00% of the machine's CPU (limit 2%)"));
  EXPECT_THAT(d.why(), Not(HasSubstr("stole")));
}

TEST(Disturbance, StealAboveItsLimitDisturbsARun) {
  const RunDisturbance d = assess_disturbance(accounting_with_machine(0.0, 0.2));  // 2.5%
  EXPECT_TRUE(d.disturbed());
  EXPECT_THAT(d.why(), HasSubstr("the hypervisor stole 2.50%"));
}

TEST(Disturbance, AQuietPhaseIsNotDisturbed) {
  // 1% foreign, and a reading a tick below zero (both sides count in ticks).
  EXPECT_FALSE(assess_disturbance(accounting_with_machine(0.08, 0.01)).disturbed());
  const RunDisturbance below_zero = assess_disturbance(accounting_with_machine(-0.02, 0));
  EXPECT_TRUE(below_zero.assessed);
  EXPECT_FALSE(below_zero.disturbed());
  EXPECT_DOUBLE_EQ(below_zero.readings[0].share, 0);
}

TEST(Disturbance, AShortPhaseIsJudgedOnlyWhereTheReadingsResolveIt) {
  // Issue 35 item 3: `-- sleep 0.01` on the host, a 3.8 ms phase, read
  // "other processes used 182.79% of the machine's CPU" from 10 ms ticks.
  json ticks = accounting_with_machine(0.0139, 0, 0.0038);
  ticks["outside"]["machine"]["busy_source"] = "/proc/stat (clock ticks)";
  ticks["outside"]["machine"]["foreign_uncertainty_seconds"] = 0.018;  // ten tick readings
  const RunDisturbance coarse = assess_disturbance(ticks);
  EXPECT_FALSE(coarse.assessed);
  EXPECT_FALSE(coarse.disturbed());
  EXPECT_THAT(coarse.not_assessed, HasSubstr("a phase of 3.8 ms is too short to judge from /proc/stat"));
  // The root cgroup's microseconds resolve it: judged, and quiet.
  json fine = accounting_with_machine(0.00005, 0, 0.0038);
  fine["outside"]["machine"]["busy_source"] = "/sys/fs/cgroup/cpu.stat";
  fine["outside"]["machine"]["foreign_uncertainty_seconds"] = 0.0;
  fine["outside"]["machine"]["steal_uncertainty_seconds"] = 0.01;
  fine["outside"]["machine"]["steal_seconds"] = 0.01;  // one tick: within its rounding
  const RunDisturbance judged = assess_disturbance(fine);
  EXPECT_TRUE(judged.assessed);
  EXPECT_FALSE(judged.disturbed()) << judged.why();
  // What lies beyond the rounding still counts.
  json busy = accounting_with_machine(0.5, 0, 4.0);
  busy["outside"]["machine"]["foreign_uncertainty_seconds"] = 0.1;
  const RunDisturbance beyond = assess_disturbance(busy);
  EXPECT_TRUE(beyond.disturbed());
  EXPECT_THAT(beyond.why(), HasSubstr("other processes used 5.00%"));
}

TEST(Disturbance, TheMachinesCpuTimeIsReadFromTheRootCgroupWhereItCanBe) {
  EXPECT_DOUBLE_EQ(*parse_cpu_stat_usage("usage_usec 1500000\nuser_usec 1000000\n"), 1.5);
  EXPECT_FALSE(parse_cpu_stat_usage("nr_periods 0\n"));
  TempDir v2, hybrid, v1, none;
  std::ofstream(v2 / "cpu.stat") << "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n";
  std::filesystem::create_directories(hybrid / "unified");
  std::ofstream(hybrid / "unified" / "cpu.stat") << "usage_usec 7000\n";
  std::filesystem::create_directories(v1 / "cpuacct");
  std::ofstream(v1 / "cpuacct" / "cpuacct.usage") << "1038943424057\n";
  EXPECT_DOUBLE_EQ(read_fine_machine_cpu(v2.path())->busy_seconds, 2.5);
  EXPECT_DOUBLE_EQ(read_fine_machine_cpu(hybrid.path())->busy_seconds, 0.007);
  EXPECT_NEAR(read_fine_machine_cpu(v1.path())->busy_seconds, 1038.943424057, 1e-9);
  EXPECT_EQ(read_fine_machine_cpu(v1.path())->source, (v1 / "cpuacct" / "cpuacct.usage").string());
  EXPECT_FALSE(read_fine_machine_cpu(none.path()));
}

TEST(Disturbance, WithoutTheOutsideReadingARunIsNotAssessedAndKept) {
  EXPECT_FALSE(assess_disturbance(std::nullopt).assessed);
  EXPECT_FALSE(assess_disturbance(std::nullopt).disturbed());
  const RunDisturbance older = assess_disturbance(json{{"type", "accounting"}, {"outside", {{"environment_cpu_seconds", 1}}}});
  EXPECT_FALSE(older.assessed);
  EXPECT_THAT(older.not_assessed, HasSubstr("not read"));
  const RunDisturbance unreadable =
      assess_disturbance(json{{"outside", {{"machine_unavailable", "/proc/stat has no cpu line here"}}}});
  EXPECT_EQ(unreadable.not_assessed, "/proc/stat has no cpu line here");
  // A field of the wrong type is not a reading.
  json wrong = accounting_with_machine(0.4, 0);
  wrong["outside"]["machine"]["cpus"] = "two";
  EXPECT_FALSE(assess_disturbance(wrong).assessed);
}

TEST(Disturbance, FisherExactTestOfTheLadyTastingTea) {
  // Fisher's own example: 3 of 4 cups right against 1 of 4: p = 34/70 = 0.4857.
  EXPECT_NEAR(fisher_exact_p(3, 4, 1, 4), 34.0 / 70, 1e-12);
  // 5 of 22 against 0 of 20 (hypergeometric sums by hand): 0.04918.
  EXPECT_NEAR(fisher_exact_p(5, 22, 0, 20), 0.0491825, 1e-6);
  EXPECT_NEAR(fisher_exact_p(1, 20, 1, 20), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(fisher_exact_p(0, 0, 1, 3), 1.0);
}

// Runs of host and docker, each launch with its accounting; `disturbed`
// lists the rounds of docker whose machine reading is busy.
std::vector<json> runs_with_accounting(int rounds, const std::vector<int>& docker_disturbed,
                                       const std::vector<int>& host_disturbed = {}) {
  const char* id = "fcn5/torch/cpu/b8";
  std::vector<json> r;
  for (int round = 1; round <= rounds; ++round) {
    for (const std::string env : {"host", "docker"}) {
      const auto& busy = env == "docker" ? docker_disturbed : host_disturbed;
      const bool is_busy = std::find(busy.begin(), busy.end(), round) != busy.end();
      // A disturbed run is slow, so setting it aside changes the figures.
      const double s = (env == "docker" ? 1.1 : 1.0) * (is_busy ? 1.5 : 1.0) * (1 + 0.01 * (round % 5));
      for (int i = 0; i < 3; ++i)
        r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", id}, {"phase", "measured"},
                     {"iter", i}, {"seconds", s}});
      json a = accounting_with_machine(is_busy ? 0.6 : 0.01, 0);
      a["env"] = env;
      a["round"] = round;
      a["case"] = id;
      r.push_back(a);
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", id}, {"ok", true}});
    }
  }
  return r;
}

json two_environment_manifest() {
  return {{"plan", {{"baseline", "host"}, {"environments", {"host", "docker"}}, {"cases", {{{"id", "fcn5/torch/cpu/b8"}}}}}}};
}

TEST(Disturbance, DisturbedRunsAreSetAsideListedAndKeptInTheFiles) {
  const Analysis a = analyze(two_environment_manifest(), runs_with_accounting(12, {3, 7}));
  const EnvironmentStats& docker = a.cases[0].envs[1];
  EXPECT_EQ(docker.run_values.size(), 10u);
  ASSERT_EQ(docker.disturbed_runs.size(), 2u);
  EXPECT_EQ(docker.disturbed_runs[0].round, 3);
  EXPECT_NEAR(docker.disturbed_runs[0].value, 1.5 * 1.1 * 1.03, 1e-12);
  EXPECT_EQ(docker.runs_assessed, 12u);
  EXPECT_FALSE(docker.disturbed_kept);
  EXPECT_EQ(std::count(docker.run_rounds.begin(), docker.run_rounds.end(), 3), 0);
  // Without the two slow runs docker is 10% slower, nothing more.
  EXPECT_NEAR(a.cases[0].overheads[0].robust.ratio, 1.1, 1e-9);
  EXPECT_EQ(a.cases[0].overheads[0].disturbance.disturbed, 2u);
  EXPECT_FALSE(a.cases[0].overheads[0].disturbance.higher);  // 2 of 12 against 0 of 12: p = 0.48
}

TEST(Disturbance, AMostlyDisturbedEnvironmentKeepsItsRunsAndIsAFinding) {
  const Analysis a = analyze(two_environment_manifest(), runs_with_accounting(12, {1, 2, 3, 4, 5, 6, 7, 8}));
  const EnvironmentStats& docker = a.cases[0].envs[1];
  EXPECT_TRUE(docker.disturbed_kept);
  EXPECT_EQ(docker.run_values.size(), 12u);
  EXPECT_EQ(docker.disturbed_runs.size(), 8u);
  const DisturbanceRates& d = a.cases[0].overheads[0].disturbance;
  EXPECT_TRUE(d.higher);  // 8 of 12 against 0 of 12
  EXPECT_LT(d.p_value, 0.01);
}

TEST(Disturbance, RunsNotReplacedStayInTheStatistics) {
  // --runs 12 planned, 12 rounds measured, 2 disturbed: no replacement made
  // them good, so the 12 runs all count (and the two are still listed).
  json manifest = two_environment_manifest();
  manifest["plan"]["runs"] = 12;
  const Analysis kept = analyze(manifest, runs_with_accounting(12, {3, 7}));
  const EnvironmentStats& docker = kept.cases[0].envs[1];
  EXPECT_TRUE(docker.disturbed_kept);
  EXPECT_EQ(docker.run_values.size(), 12u);
  EXPECT_EQ(docker.disturbed_runs.size(), 2u);
  // With --runs 10, the two extra rounds replaced them.
  manifest["plan"]["runs"] = 10;
  const Analysis replacing = analyze(manifest, runs_with_accounting(12, {3, 7}));
  const EnvironmentStats& replaced = replacing.cases[0].envs[1];
  EXPECT_FALSE(replaced.disturbed_kept);
  EXPECT_EQ(replaced.run_values.size(), 10u);
}

}  // namespace
}  // namespace dlcbench
