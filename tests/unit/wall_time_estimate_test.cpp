// The estimate of a run's wall time before its first launch: from earlier
// runs' launch records in the results folder, never more than they show.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "orchestrator/wall_time_estimate.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

void write_launches(const std::filesystem::path& run, const std::string& env, const std::vector<double>& walls) {
  std::filesystem::create_directories(run);
  std::ofstream out(run / "results.jsonl", std::ios::app);
  for (double w : walls)
    out << nlohmann::json{{"type", "launch"}, {"case", "startup"}, {"env", env}, {"ok", true}, {"wall_seconds", w}}.dump()
        << "\n";
  out << nlohmann::json{{"type", "launch"}, {"case", "startup"}, {"env", env}, {"ok", false}, {"wall_seconds", 900}}.dump()
      << "\n";  // a failed launch says nothing of how long one takes
}

Plan startup_plan(const std::string& envs, int runs) {
  Plan p;
  CaseSpec startup;
  startup.workload = "startup";
  startup.backend = "none";
  p.cases = {startup};
  p.environments = parse_environment_list(envs);
  p.runs = runs;
  return p;
}

TEST(WallTimeEstimate, EachCellIsItsMedianLaunchTimesTheRounds) {
  testing::TempDir results;
  write_launches(results / "run-a", "host", {1.0, 2.0, 9.0});     // median 2
  write_launches(results / "run-b", "host#2", {2.0});             // a calibrate run's copy of host
  write_launches(results / "run-b", "docker", {4.0, 5.0, 6.0});   // median 5
  const auto e = estimate_wall_time(startup_plan("host,docker", 10), results.path());
  EXPECT_EQ(e.cells, 2u);
  EXPECT_EQ(e.cells_known, 2u);
  EXPECT_EQ(e.runs_read, 2u);
  EXPECT_DOUBLE_EQ(e.seconds, 10 * (2.0 + 5.0));
  EXPECT_THAT(estimate_words(e, results.path()), HasSubstr("about 70 s of launches"));
}

TEST(WallTimeEstimate, ACellNoRunMeasuredIsCountedNotGuessed) {
  testing::TempDir results;
  write_launches(results / "run-a", "host", {3.0});
  const auto part = estimate_wall_time(startup_plan("host,runc", 40), results.path());
  EXPECT_EQ(part.cells_known, 1u);
  EXPECT_DOUBLE_EQ(part.seconds, 120);
  EXPECT_THAT(estimate_words(part, results.path()), HasSubstr("at least 2 min of launches for the 1 of 2"));
  testing::TempDir empty;
  const auto none = estimate_wall_time(startup_plan("host", 5), empty.path());
  EXPECT_EQ(none.cells_known, 0u);
  EXPECT_THAT(estimate_words(none, empty.path()), HasSubstr("no estimate yet"));
}

}  // namespace
}  // namespace dlcbench
