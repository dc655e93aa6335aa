// The gate turns verdicts into pass and fail, so their error rates must be
// known (issue 40, item 5). Simulated runs with drift between rounds as the
// 2-vCPU development machine shows it (a round's machine state moves both
// environments of the round; it also wanders from round to round), checked
// against what the verdict claims: its interval covers the true ratio about
// 95% of the time, an A/A comparison says "slower" at most 5% of the time,
// and a shift of the smallest overhead it says it would detect 4 times in 5
// is detected about that often.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "analysis/overhead.h"

namespace dlcbench {
namespace {

struct Trial {
  Overhead o;
  double truth = 1;
};

// One comparison of 20 paired rounds. Each round's machine state is a slow
// random walk (2% per round) plus a round effect both share (3%), and each
// run has its own noise (2%): run values of the baseline around 0.1 s.
Trial simulate(std::mt19937& rng, double truth, int rounds = 20) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> base, env;
  std::vector<int> ids;
  double walk = 0;
  for (int r = 1; r <= rounds; ++r) {
    walk += 0.02 * z(rng);
    const double shared = walk + 0.03 * z(rng);
    base.push_back(0.1 * std::exp(shared + 0.02 * z(rng)));
    env.push_back(0.1 * truth * std::exp(shared + 0.02 * z(rng)));
    ids.push_back(r);
  }
  Trial t;
  t.truth = truth;
  t.o = compare_figures("env", {env, ids}, {base, ids}, ComparisonWording::overhead);
  return t;
}

TEST(VerdictErrorRates, TheIntervalCoversTheTruthAndAAIsRarelySlower) {
  std::mt19937 rng(2026);
  constexpr int kTrials = 600;
  int covered = 0, bounded = 0, slower = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Trial t = simulate(rng, 1.0);
    if (t.o.headline.bounded()) {
      ++bounded;
      covered += t.o.headline.time_low <= t.truth && t.truth <= t.o.headline.time_high;
    }
    slower += t.o.verdict == Verdict::slower;
  }
  ASSERT_EQ(bounded, kTrials);
  const double coverage = static_cast<double>(covered) / bounded;
  RecordProperty("coverage", std::to_string(coverage));
  RecordProperty("aa_slower", std::to_string(static_cast<double>(slower) / kTrials));
  // 95% claimed; with 600 trials the sampling error is about 1%.
  EXPECT_GE(coverage, 0.93) << coverage;
  EXPECT_LE(coverage, 0.995) << coverage;
  EXPECT_LE(static_cast<double>(slower) / kTrials, 0.05);
}

TEST(VerdictErrorRates, AShiftOfTheClaimedDetectableOverheadIsFoundAboutFourTimesInFive) {
  std::mt19937 rng(7);
  // What the verdict claims it would detect, from A/A trials of this noise.
  std::vector<double> claimed;
  for (int i = 0; i < 200; ++i) claimed.push_back(simulate(rng, 1.0).o.min_detectable);
  std::sort(claimed.begin(), claimed.end());
  const double detectable = claimed[claimed.size() / 2];
  ASSERT_GT(detectable, 0.005);
  ASSERT_LT(detectable, 0.10);
  constexpr int kTrials = 400;
  int found = 0;
  for (int i = 0; i < kTrials; ++i) found += simulate(rng, 1 + detectable).o.verdict == Verdict::slower;
  const double power = static_cast<double>(found) / kTrials;
  RecordProperty("claimed_detectable", std::to_string(detectable));
  RecordProperty("power_at_claimed", std::to_string(power));
  EXPECT_GE(power, 0.70) << "claimed 80% at +" << 100 * detectable << "%";
  // And a 5% shift, this machine's usual question, is found at least that often
  // where the claim is below 5%.
  if (detectable <= 0.05) {
    int five = 0;
    for (int i = 0; i < kTrials; ++i) five += simulate(rng, 1.05).o.verdict == Verdict::slower;
    RecordProperty("power_at_5_percent", std::to_string(static_cast<double>(five) / kTrials));
    EXPECT_GE(static_cast<double>(five) / kTrials, 0.75);
  }
}

}  // namespace
}  // namespace dlcbench
