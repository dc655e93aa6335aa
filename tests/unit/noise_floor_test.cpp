#include "analysis/noise_floor.h"

#include <cmath>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(NoiseFloor, RoundsScaleWithTheSquareOfTheWidth) {
  // 20 rounds gave +-4%: +-2% needs four times as many, +-1% sixteen.
  EXPECT_EQ(rounds_for_precision(20, 0.04, 0.02), 80u);
  EXPECT_EQ(rounds_for_precision(20, 0.04, 0.01), 320u);
  // Never fewer than the six rounds of the first signed-rank interval.
  EXPECT_EQ(rounds_for_precision(20, 0.01, 0.05), 6u);
  EXPECT_EQ(rounds_for_precision(20, NAN, 0.02), 0u);
}

// An A/A run: host and host#2 round by round, log-normal run values.
Analysis calibration_run(int rounds) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> seconds(std::log(0.2), 0.05);
  const json manifest = {{"plan",
                          {{"baseline", "host"},
                           {"environments", {"host", "host#2"}},
                           {"calibration", true},
                           {"precision", 0.03},
                           {"cases", {{{"id", "fcn5/torch/cpu/b64"}}}}}}};
  std::vector<json> r;
  for (int round = 1; round <= rounds; ++round)
    for (const char* env : {"host", "host#2"}) {
      r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", "fcn5/torch/cpu/b64"},
                   {"phase", "measured"}, {"seconds", seconds(rng)}});
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", "fcn5/torch/cpu/b64"}, {"ok", true}});
    }
  return analyze(manifest, r);
}

TEST(NoiseFloor, FromTheBaselineAgainstItsCopy) {
  const Analysis a = calibration_run(20);
  EXPECT_TRUE(a.calibration);
  const auto floors = noise_floors(a, a.precision);
  ASSERT_EQ(floors.size(), 1u);
  const NoiseFloor& n = floors[0];
  EXPECT_EQ(n.env, "host#2");
  EXPECT_EQ(n.rounds, 20u);
  EXPECT_NEAR(n.half_width, n.difference.half_width(), 1e-15);
  // 5% spread per run: the paired interval of 20 rounds is a few percent.
  EXPECT_GT(n.half_width, 0.005);
  EXPECT_LT(n.half_width, 0.06);
  // 1%, 2%, 3% (the run's --precision) and 5%, in order.
  ASSERT_EQ(n.rounds_for.size(), 4u);
  EXPECT_DOUBLE_EQ(n.rounds_for[2].precision, 0.03);
  EXPECT_EQ(n.rounds_for[1].rounds, rounds_for_precision(20, n.half_width, 0.02));
  const auto lines = noise_floor_lines(n);
  EXPECT_THAT(lines[0], HasSubstr("host#2 against host"));
  EXPECT_THAT(lines[0], HasSubstr("with 20 rounds the noise floor is +-"));
  EXPECT_THAT(lines[1], HasSubstr("+-2%: "));
}

TEST(NoiseFloor, TooFewRoundsSaySo) {
  const auto floors = noise_floors(calibration_run(4), 0);
  ASSERT_EQ(floors.size(), 1u);
  EXPECT_THAT(noise_floor_lines(floors[0])[0], HasSubstr("4 rounds are too few for an interval"));
}

}  // namespace
}  // namespace dlcbench
