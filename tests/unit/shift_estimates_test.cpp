// Expected interval ranks come from a brute-force enumeration of the null
// distributions (every ordering of m + n values; every sign pattern of n
// differences) done apart from this code, and agree with the published
// critical values (Mann-Whitney m = n = 10: U <= 23; Wilcoxon n = 10:
// T <= 8, both two-sided 5%).
#include "core/shift_estimates.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/students_t.hpp>
#include <gtest/gtest.h>

namespace dlcbench {
namespace {

// The k-th smallest and k-th largest of every subject - baseline difference.
std::pair<double, double> kth_differences(const std::vector<double>& x, const std::vector<double>& y, std::size_t k) {
  std::vector<double> d;
  for (double a : x)
    for (double b : y) d.push_back(a - b);
  std::sort(d.begin(), d.end());
  return {d[k - 1], d[d.size() - k]};
}

TEST(ShiftEstimates, HodgesLehmannOfTwoSamplesWithItsExactInterval) {
  // Enumerated: k = 6 for m = n = 6; the median of the 36 differences is 2.0,
  // and the 6th smallest and largest are -1.5 and 5.2.
  const std::vector<double> x = {1.3, 2.9, 4.1, 5.5, 7.2, 8.0}, y = {0.5, 1.1, 2.0, 3.3, 4.4, 6.1};
  const ShiftEstimate s = hodges_lehmann_shift(x, y);
  EXPECT_NEAR(s.shift, 2.0, 1e-12);
  EXPECT_NEAR(s.ci95_low, -1.5, 1e-12);
  EXPECT_NEAR(s.ci95_high, 5.2, 1e-12);
  EXPECT_TRUE(s.exact);
}

TEST(ShiftEstimates, IntervalRanksMatchTheEnumeratedDistribution) {
  // k per (m, n), enumerated: (4,4) 1, (5,5) 3, (6,4) 3, (10,10) 24, (8,12) 23.
  const std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> ranks = {
      {4, 4, 1}, {5, 5, 3}, {6, 4, 3}, {10, 10, 24}, {8, 12, 23}};
  for (const auto& [m, n, k] : ranks) {
    std::vector<double> x, y;
    // Distinct values without ties in the differences: powers of two apart.
    for (std::size_t i = 0; i < m; ++i) x.push_back(std::ldexp(1.0, static_cast<int>(i)) + 0.37);
    for (std::size_t j = 0; j < n; ++j) y.push_back(std::ldexp(1.0, static_cast<int>(j + m)) * 0.5 + 0.11);
    const ShiftEstimate s = hodges_lehmann_shift(x, y);
    const auto [low, high] = kth_differences(x, y, k);
    EXPECT_DOUBLE_EQ(s.ci95_low, low) << m << " x " << n;
    EXPECT_DOUBLE_EQ(s.ci95_high, high) << m << " x " << n;
  }
}

TEST(ShiftEstimates, TooFewValuesGiveNoInterval) {
  // Three a side: P(U = 0) = 1/20 = 5% > 2.5%, so no 95% interval exists.
  const ShiftEstimate s = hodges_lehmann_shift(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  EXPECT_DOUBLE_EQ(s.shift, -3);
  EXPECT_TRUE(std::isnan(s.ci95_low));
  EXPECT_TRUE(std::isnan(s.ci95_high));
  EXPECT_TRUE(std::isnan(hodges_lehmann_shift({}, std::vector<double>{1.0}).shift));
}

TEST(ShiftEstimates, ShiftedCopyIsFoundExactly) {
  std::vector<double> y;
  for (int i = 0; i < 30; ++i) y.push_back(std::sin(i * 1.7) + i * 0.01);
  std::vector<double> x = y;
  for (double& v : x) v += 0.25;
  const ShiftEstimate s = hodges_lehmann_shift(x, y);  // 900 pairs: exact
  EXPECT_NEAR(s.shift, 0.25, 1e-12);
  EXPECT_LT(s.ci95_low, 0.25);
  EXPECT_GT(s.ci95_high, 0.25);
  EXPECT_TRUE(s.exact);
}

TEST(ShiftEstimates, LargeSamplesUseTheNormalApproximationCloseToExact) {
  // 51 x 50 is past the exact limit. Its exact rank, counted apart with
  // integer arithmetic, is 987; the normal approximation with a continuity
  // correction gives 986: one step, on 2,550 differences.
  std::vector<double> x, y;
  for (int i = 0; i < 51; ++i) x.push_back(std::ldexp(1.0, i % 40) * (1 + 0.001 * i));
  for (int j = 0; j < 50; ++j) y.push_back(std::ldexp(1.0, j % 37) * (1.3 + 0.001 * j));
  const ShiftEstimate approx = hodges_lehmann_shift(x, y);
  EXPECT_FALSE(approx.exact);
  const auto [low, high] = kth_differences(x, y, 986);
  EXPECT_DOUBLE_EQ(approx.ci95_low, low);
  EXPECT_DOUBLE_EQ(approx.ci95_high, high);
}

TEST(ShiftEstimates, PairedHodgesLehmannWithSignedRankInterval) {
  // Enumerated: k = 9 for n = 10; the median of the 55 Walsh averages is
  // 0.7, the 9th smallest and largest 0.05 and 1.3.
  const std::vector<double> d = {0.8, -0.3, 1.2, 0.5, 2.1, -0.9, 1.7, 0.4, 1.1, 0.2};
  const ShiftEstimate s = hodges_lehmann_paired(d);
  EXPECT_NEAR(s.shift, 0.7, 1e-12);
  EXPECT_NEAR(s.ci95_low, 0.05, 1e-12);
  EXPECT_NEAR(s.ci95_high, 1.3, 1e-12);
  // Five differences: P(T = 0) = 1/32 > 2.5%, no interval.
  EXPECT_TRUE(std::isnan(hodges_lehmann_paired(std::vector<double>{1, 2, 3, 4, 5}).ci95_low));
}

TEST(ShiftEstimates, YuenTrimmedMeansByHand) {
  // By hand (20% trim of 6 cuts one from each end): trimmed means 4.925 and
  // 2.7, difference 2.225; winsorized variances give a standard error of
  // 1.6150765 on 5.6487904 Welch degrees of freedom.
  const std::vector<double> x = {1.3, 2.9, 4.1, 5.5, 7.2, 8.0}, y = {0.5, 1.1, 2.0, 3.3, 4.4, 6.1};
  const ShiftEstimate s = yuen_trimmed_difference(x, y);
  EXPECT_NEAR(s.shift, 2.225, 1e-12);
  const double t = boost::math::quantile(boost::math::students_t(5.648790421197872), 0.975);
  EXPECT_NEAR(s.ci95_high - s.shift, t * 1.6150765375740626, 1e-9);
  EXPECT_NEAR(s.shift - s.ci95_low, t * 1.6150765375740626, 1e-9);
  // One value left after trimming: a shift, no interval.
  const ShiftEstimate few = yuen_trimmed_difference(std::vector<double>{1.0}, std::vector<double>{2.0});
  EXPECT_DOUBLE_EQ(few.shift, -1);
  EXPECT_TRUE(std::isnan(few.ci95_low));
}

}  // namespace
}  // namespace dlcbench
