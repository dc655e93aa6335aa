// Expected values come from published worked examples, from quantiles in
// standard t tables, from hand computation shown in the comment, or from an
// independent brute-force enumeration inside the test; each test says which.
#include "core/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace dlcbench {
namespace {

TEST(Statistics, SummaryOfTextbookSample) {
  // The classic population-stddev example {2,4,4,4,5,5,7,9}: mean 5, sum of
  // squared deviations 32, so the sample stddev is sqrt(32/7) = 2.138090.
  // t(0.975, 7) = 2.364624 (t table), half-width = 2.364624 * 2.138090 / sqrt(8).
  std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9};
  Summary s = summarize(xs);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev, 2.138090, 1e-6);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_NEAR(s.cv, 2.138090 / 5, 1e-6);
  EXPECT_NEAR(s.ci95_low, 5 - 1.787483, 1e-5);
  EXPECT_NEAR(s.ci95_high, 5 + 1.787483, 1e-5);
}

TEST(Statistics, PercentileInterpolatesBetweenOrderStatisticsAsNumPyDoes) {
  // numpy.percentile([1, 2, 3, 4, 10], [0, 50, 90, 99, 100]) = 1, 3, 7.6, 9.76, 10.
  const std::vector<double> xs = {10, 2, 4, 1, 3};
  EXPECT_DOUBLE_EQ(percentile(xs, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(xs, 0.5), 3);
  EXPECT_NEAR(percentile(xs, 0.9), 7.6, 1e-12);
  EXPECT_NEAR(percentile(xs, 0.99), 9.76, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(xs, 1.0), 10);
  EXPECT_TRUE(std::isnan(percentile(std::vector<double>{}, 0.5)));
}

TEST(Statistics, RunValueIsTheWorkloadsStatistic) {
  const std::vector<double> xs = {0.30, 0.10, 0.20, 0.60};
  EXPECT_DOUBLE_EQ(run_value("mean", xs), 0.30);
  EXPECT_DOUBLE_EQ(run_value("median", xs), 0.25);
  EXPECT_DOUBLE_EQ(run_value("min", xs), 0.10);  // STREAM's best of N, in time
  EXPECT_THROW(run_value("max", xs), std::invalid_argument);
}

TEST(Statistics, OddCountMedian) {
  std::vector<double> xs = {9, 1, 5};
  EXPECT_DOUBLE_EQ(median(xs), 5);
}

TEST(Statistics, EmptySampleIsAllUndefined) {
  Summary s = summarize({});
  EXPECT_EQ(s.n, 0u);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.ci95_low));
}

TEST(Statistics, SingleSampleHasNoSpreadOrInterval) {
  std::vector<double> xs = {0.25};
  Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.mean, 0.25);
  EXPECT_DOUBLE_EQ(s.median, 0.25);
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.ci95_low));
  EXPECT_TRUE(std::isnan(s.ci95_high));
}

TEST(Statistics, TwoSamplesUseOneDegreeOfFreedom) {
  // {1, 3}: mean 2, stddev sqrt(2); t(0.975, 1) = 12.7062 (t table), so the
  // half-width is 12.7062 * sqrt(2) / sqrt(2).
  std::vector<double> xs = {1, 3};
  Summary s = summarize(xs);
  EXPECT_NEAR(s.stddev, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(s.ci95_low, 2 - 12.7062, 1e-4);
  EXPECT_NEAR(s.ci95_high, 2 + 12.7062, 1e-4);
}

TEST(Statistics, IdenticalSamplesHaveZeroWidthInterval) {
  std::vector<double> xs = {3, 3, 3, 3};
  Summary s = summarize(xs);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_DOUBLE_EQ(s.ci95_low, 3);
  EXPECT_DOUBLE_EQ(s.ci95_high, 3);
}

TEST(Statistics, StudentTCriticalValuesMatchTables) {
  EXPECT_NEAR(student_t_critical(0.95, 1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 10), 2.2281, 1e-4);
  EXPECT_NEAR(student_t_critical(0.95, 1e6), 1.9600, 1e-4);
  EXPECT_TRUE(std::isnan(student_t_critical(0.95, 0)));
}

TEST(Statistics, WelchTestOnRSleepData) {
  // R's worked example, `t.test(extra ~ group, data = sleep)`:
  // t = -1.8608, df = 17.776, p-value = 0.07939.
  std::vector<double> g1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  std::vector<double> g2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  WelchTest w = welch_t_test(g1, g2);
  EXPECT_NEAR(w.t, -1.8608, 1e-4);
  EXPECT_NEAR(w.df, 17.776, 1e-3);
  EXPECT_NEAR(w.p_value, 0.07939, 1e-5);
}

TEST(Statistics, WelchTestOfConstantSamples) {
  std::vector<double> a = {2, 2, 2}, b = {2, 2}, c = {3, 3};
  EXPECT_DOUBLE_EQ(welch_t_test(a, b).p_value, 1.0);
  EXPECT_DOUBLE_EQ(welch_t_test(a, c).p_value, 0.0);
  std::vector<double> one = {1};
  EXPECT_TRUE(std::isnan(welch_t_test(one, a).p_value));
}

TEST(Statistics, FiellerWithExactBaselineReducesToTInterval) {
  // With a constant baseline (variance 0) Fieller's interval is the t
  // interval of the subject mean divided by the baseline: Welch df = n - 1
  // = 2, t(0.975, 2) = 4.302653 (t table), subject mean 12, variance 4, so
  // (12 +- 4.302653 * sqrt(4/3)) / 5 = [1.406346, 3.393654].
  std::vector<double> subject = {10, 12, 14}, baseline = {5, 5, 5};
  RatioEstimate r = ratio_of_means(subject, baseline);
  EXPECT_DOUBLE_EQ(r.ratio, 2.4);
  EXPECT_NEAR(r.ci95_low, 1.406346, 1e-5);
  EXPECT_NEAR(r.ci95_high, 3.393654, 1e-5);
}

TEST(Statistics, FiellerEndpointsSolveTheDefiningQuadratic) {
  // The interval is {rho : (a - rho b)^2 <= t^2 (va + rho^2 vb)}; both ends
  // must satisfy it with equality, and the ratio must lie inside.
  std::vector<double> subject = {1.05, 1.10, 1.02, 1.08, 1.07, 1.04};
  std::vector<double> baseline = {1.00, 0.98, 1.03, 1.01, 0.99, 1.02, 1.00};
  RatioEstimate r = ratio_of_means(subject, baseline);
  const double a = mean(subject), b = mean(baseline);
  const double va = std::pow(stddev(subject), 2) / 6, vb = std::pow(stddev(baseline), 2) / 7;
  EXPECT_EQ(r.ci95_df, 5);  // min(6, 7) - 1
  const double t = student_t_critical(0.95, r.ci95_df);
  for (double rho : {r.ci95_low, r.ci95_high})
    EXPECT_NEAR((a - rho * b) * (a - rho * b), t * t * (va + rho * rho * vb), 1e-12);
  EXPECT_LT(r.ci95_low, r.ratio);
  EXPECT_GT(r.ci95_high, r.ratio);
  EXPECT_GT(r.ci95_low, 1.0);  // this subject is clearly slower
}

TEST(Statistics, FiellerIsUnboundedForAWildBaseline) {
  // A baseline mean not significantly different from zero gives no bounded
  // interval; it must be reported as such, not as a number.
  std::vector<double> subject = {1, 1.1, 0.9}, baseline = {-5, 5, 0.5};
  RatioEstimate r = ratio_of_means(subject, baseline);
  EXPECT_EQ(r.interval, RatioInterval::unbounded);
  EXPECT_TRUE(std::isnan(r.ci95_low));
  EXPECT_TRUE(std::isnan(r.ci95_high));
}

TEST(Statistics, FiellerJudgesOneBaselineAlikeForEverySubject) {
  // Issue 18: with 2 runs, a baseline with CV 24% was "too noisy" next to
  // quiet subjects (Welch df near 1, t = 12.7) and not next to a noisy one
  // (df near 2, t = 4.3). The interval's df is now min(n) - 1 for all three,
  // so one baseline gets one judgement.
  std::vector<double> baseline = {0.10, 0.14};                 // CV about 24%
  std::vector<double> noisy = {0.10, 0.145}, quiet = {0.120, 0.127}, quieter = {0.124, 0.1245};
  const RatioEstimate n = ratio_of_means(noisy, baseline), q = ratio_of_means(quiet, baseline),
                      qq = ratio_of_means(quieter, baseline);
  EXPECT_EQ(n.ci95_df, 1);
  EXPECT_EQ(q.ci95_df, 1);
  EXPECT_EQ(n.interval, q.interval);
  EXPECT_EQ(q.interval, qq.interval);
  // With 2 runs a baseline of CV 24% does not bound the ratio: g = 12.706^2
  // (0.0283^2 / 2) / 0.12^2 = 4.5 >= 1. Its mean needs runs to become clearly non-zero.
  EXPECT_EQ(q.interval, RatioInterval::unbounded);
  const std::size_t runs = runs_to_bound_mean(baseline);
  const double cv = stddev(baseline) / mean(baseline);
  EXPECT_GE(runs, 3u);
  EXPECT_LE(student_t_critical(0.95, static_cast<double>(runs - 1)) * cv / std::sqrt(static_cast<double>(runs)), 0.5);
  if (runs > 3) {
    EXPECT_GT(student_t_critical(0.95, static_cast<double>(runs - 2)) * cv / std::sqrt(static_cast<double>(runs - 1)),
              0.5);
  }
}

TEST(Statistics, FiellerSaysWhenTheIntervalReachesZero) {
  // A subject whose mean is not clearly above zero: the interval's lower end
  // falls to or below 0, a ratio no pair of times can have, and is said so
  // rather than printed as "-265%".
  std::vector<double> subject = {0.1, 5.0, 0.2}, baseline = {1.0, 1.01, 0.99};
  const RatioEstimate r = ratio_of_means(subject, baseline);
  EXPECT_EQ(r.interval, RatioInterval::reaches_zero);
  EXPECT_LE(r.ci95_low, 0);
  EXPECT_GT(r.ci95_high, r.ratio);
  const RatioEstimate clear = ratio_of_means(std::vector<double>{1.1, 1.12, 1.09}, baseline);
  EXPECT_EQ(clear.interval, RatioInterval::bounded);
}

TEST(Statistics, DifferenceOfMeansHasWelchsInterval) {
  // subject {10, 12, 14}: mean 12, variance 4; baseline constant 5. Welch df
  // = 2, t(0.975, 2) = 4.302653, se = sqrt(4/3): 7 +- 4.968276.
  std::vector<double> subject = {10, 12, 14}, baseline = {5, 5, 5};
  const DifferenceEstimate d = difference_of_means(subject, baseline);
  EXPECT_DOUBLE_EQ(d.difference, 7);
  EXPECT_NEAR(d.ci95_low, 7 - 4.968276, 1e-5);
  EXPECT_NEAR(d.ci95_high, 7 + 4.968276, 1e-5);
  EXPECT_TRUE(std::isnan(difference_of_means(std::vector<double>{1}, baseline).ci95_low));
}

TEST(Statistics, RatioWithTooFewSamplesHasNoInterval) {
  std::vector<double> one = {1.0}, two = {1.0, 1.2};
  RatioEstimate r = ratio_of_means(one, two);
  EXPECT_NEAR(r.ratio, 1 / 1.1, 1e-12);
  EXPECT_EQ(r.interval, RatioInterval::none);
  EXPECT_TRUE(std::isnan(r.ci95_low));
}

// --- Median absolute deviation, modified z-scores, outliers ---------------

TEST(Statistics, ModifiedZScoresFlagTheOutlier) {
  // Hand computation: {10, 11, 12, 13, 14, 50} has median 12.5; absolute
  // deviations {2.5, 1.5, 0.5, 0.5, 1.5, 37.5}, sorted {0.5, 0.5, 1.5, 1.5,
  // 2.5, 37.5}, so MAD = 1.5. M = 0.6745 (x - 12.5) / 1.5: for 50 that is
  // 0.6745 * 25 = 16.8625, for 10 it is -0.6745 * 2.5 / 1.5 = -1.124167.
  std::vector<double> xs = {10, 11, 12, 13, 14, 50};
  EXPECT_DOUBLE_EQ(median_absolute_deviation(xs), 1.5);
  std::vector<double> z = modified_z_scores(xs);
  ASSERT_EQ(z.size(), 6u);
  EXPECT_NEAR(z[0], -1.124167, 1e-6);
  EXPECT_NEAR(z[1], -0.6745, 1e-12);
  EXPECT_NEAR(z[3], 0.6745 / 3, 1e-12);
  EXPECT_NEAR(z[5], 16.8625, 1e-9);
  EXPECT_EQ(outlier_indices(xs), std::vector<std::size_t>{5});
  // Every non-outlier has |M| <= 1.124167, so a threshold of 1 adds index 0.
  EXPECT_EQ(outlier_indices(xs, 1.0), (std::vector<std::size_t>{0, 5}));
}

TEST(Statistics, ZeroMadFallsBackToMeanAbsoluteDeviation) {
  // Hand computation: {5, 5, 5, 5, 9} has median 5 and absolute deviations
  // {0, 0, 0, 0, 4}, so MAD = 0 and the mean absolute deviation is 0.8.
  // M = (9 - 5) / (1.253314 * 0.8) = 3.989423 (= 5 sqrt(2 / pi) to 6
  // digits, since 1.253314 ~ sqrt(pi / 2)), which exceeds 3.5.
  std::vector<double> xs = {5, 5, 5, 5, 9};
  EXPECT_DOUBLE_EQ(median_absolute_deviation(xs), 0);
  std::vector<double> z = modified_z_scores(xs);
  ASSERT_EQ(z.size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(z[i], 0);
  EXPECT_NEAR(z[4], 3.989423, 1e-6);
  EXPECT_EQ(outlier_indices(xs), std::vector<std::size_t>{4});
}

TEST(Statistics, IdenticalValuesHaveZeroScoresAndNoOutliers) {
  // MAD and mean absolute deviation are both 0: every score is 0.
  std::vector<double> xs = {3, 3, 3, 3};
  EXPECT_DOUBLE_EQ(median_absolute_deviation(xs), 0);
  EXPECT_EQ(modified_z_scores(xs), std::vector<double>(4, 0.0));
  EXPECT_TRUE(outlier_indices(xs, 0.0).empty());
}

TEST(Statistics, OneOrTwoValuesHaveNoOutliers) {
  // n = 1: the value is its own median, MAD = MeanAD = 0, score 0.
  std::vector<double> one = {7};
  EXPECT_DOUBLE_EQ(median_absolute_deviation(one), 0);
  EXPECT_EQ(modified_z_scores(one), std::vector<double>{0.0});
  EXPECT_TRUE(outlier_indices(one, 0.0).empty());
  // n = 2, hand computation: {1, 3} has median 2, deviations {1, 1}, MAD 1,
  // scores -+0.6745. Even a threshold below that flags nothing (n < 3).
  std::vector<double> two = {1, 3};
  EXPECT_DOUBLE_EQ(median_absolute_deviation(two), 1);
  std::vector<double> z = modified_z_scores(two);
  ASSERT_EQ(z.size(), 2u);
  EXPECT_NEAR(z[0], -0.6745, 1e-12);
  EXPECT_NEAR(z[1], 0.6745, 1e-12);
  EXPECT_TRUE(outlier_indices(two, 0.1).empty());
}

TEST(Statistics, FewerThanFiveValuesHaveNoOutliers) {
  // {0.2298, 0.2467, 0.2474}: median 0.2467, MAD 0.0007, so the first value
  // scores 0.6745 * 0.0169 / 0.0007 = 16.3 on a 4% spread: with three values
  // the MAD rests on one distance, and kMinOutlierSample keeps that quiet.
  std::vector<double> three = {0.2298, 0.2467, 0.2474};
  EXPECT_NEAR(modified_z_scores(three)[0], -0.6745 * 0.0169 / 0.0007, 1e-9);
  EXPECT_TRUE(outlier_indices(three).empty());
  std::vector<double> five = {0.2298, 0.2467, 0.2474, 0.2470, 0.2466};
  EXPECT_EQ(outlier_indices(five), std::vector<std::size_t>{0});
}

TEST(Statistics, EmptyInputHasUndefinedMadAndNoScores) {
  EXPECT_TRUE(std::isnan(median_absolute_deviation({})));
  EXPECT_TRUE(modified_z_scores({}).empty());
  EXPECT_TRUE(outlier_indices({}).empty());
}

// --- Mann-Whitney U ------------------------------------------------------

// Reference two-sided p by brute force: every way of choosing which n_a of
// the pooled values form sample a is equally likely under H0; U of a split
// is counted pair by pair (1 per a > b, 1/2 per tie), independently of the
// rank-sum formula and of the recursion used by mann_whitney_u.
double pairwise_u(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0;
  for (double x : a)
    for (double y : b) u += x > y ? 1.0 : x == y ? 0.5 : 0.0;
  return u;
}

double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t n = pooled.size();
  const double u = pairwise_u(a, b);
  std::uint64_t total = 0, at_most = 0, at_least = 0;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(std::popcount(mask)) != a.size()) continue;
    std::vector<double> sa, sb;
    for (std::size_t i = 0; i < n; ++i) (mask >> i & 1u ? sa : sb).push_back(pooled[i]);
    const double v = pairwise_u(sa, sb);
    ++total;
    at_most += v <= u;
    at_least += v >= u;
  }
  return std::min(1.0, 2.0 * static_cast<double>(std::min(at_most, at_least)) /
                           static_cast<double>(total));
}

TEST(Statistics, MannWhitneyExactOnHollanderWolfeExample) {
  // R's ?wilcox.test example from Hollander & Wolfe (1973), p. 69:
  // wilcox.test(x, y, alternative = "greater") gives W = 35, p = 0.1272.
  // The exact null distribution is symmetric, so the two-sided p is twice
  // that; brute-force enumeration of the C(15, 5) = 3003 splits gives
  // 382 with U >= 35, i.e. 764 / 3003 = 0.254412.
  std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  MannWhitneyTest m = mann_whitney_u(x, y);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 35);
  EXPECT_NEAR(m.p_value, 764.0 / 3003.0, 1e-12);
  EXPECT_NEAR(m.p_value, 2 * 0.1272, 1e-4);
  EXPECT_NEAR(m.p_value, brute_force_p(x, y), 1e-12);
}

TEST(Statistics, MannWhitneyExactMatchesBruteForce) {
  // Each expected p is brute_force_p's enumeration of all splits; U is the
  // pair count. Swapping the samples turns U into n_a n_b - U, same p.
  const std::vector<std::vector<double>> as = {
      {1, 2, 3}, {1.1, 2.3, 0.4, 5.6, 3.3}, {3.5}, {0.2, 9.1, 4.4, 6.0, 7.3, 1.8, 5.5}, {2, 4}};
  const std::vector<std::vector<double>> bs = {
      {4, 5, 6}, {4.2, 6.1, 7.7, 5.9, 8.0, 6.6}, {1, 2, 4, 5, 6, 7}, {3.1, 8.2, 2.7, 6.9, 9.9}, {1, 3, 5}};
  for (std::size_t i = 0; i < as.size(); ++i) {
    SCOPED_TRACE(i);
    MannWhitneyTest m = mann_whitney_u(as[i], bs[i]);
    EXPECT_TRUE(m.exact);
    EXPECT_DOUBLE_EQ(m.u, pairwise_u(as[i], bs[i]));
    EXPECT_NEAR(m.p_value, brute_force_p(as[i], bs[i]), 1e-12);
    MannWhitneyTest swapped = mann_whitney_u(bs[i], as[i]);
    EXPECT_DOUBLE_EQ(swapped.u, static_cast<double>(as[i].size() * bs[i].size()) - m.u);
    EXPECT_NEAR(swapped.p_value, m.p_value, 1e-12);
  }
  // {1,2,3} vs {4,5,6}: only 1 of the C(6,3) = 20 splits has U = 0 and one
  // has U = 9, so p = 2 / 20 exactly.
  EXPECT_NEAR(mann_whitney_u(as[0], bs[0]).p_value, 0.1, 1e-15);
}

TEST(Statistics, MannWhitneyExactUpToFortyValues) {
  // 20 vs 20 fully separated: exactly one of the C(40, 20) = 137846528820
  // orderings has U = 0 (and one U = 400), so p = 2 / C(40, 20) =
  // 1.4508889e-11 (closed form, computed with Python's math.comb).
  std::vector<double> lo, hi;
  for (int i = 0; i < 20; ++i) {
    lo.push_back(i);
    hi.push_back(100 + i);
  }
  MannWhitneyTest m = mann_whitney_u(lo, hi);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 0);
  EXPECT_NEAR(m.p_value / 1.4508889103849688e-11, 1.0, 1e-12);
  // One more value and the normal approximation takes over.
  hi.push_back(120);
  EXPECT_FALSE(mann_whitney_u(lo, hi).exact);
}

TEST(Statistics, MannWhitneyWithTiesOnRSleepData) {
  // R's `wilcox.test(extra ~ group, data = sleep)` (ties, so the normal
  // approximation with continuity correction): W = 25.5, p-value = 0.06933.
  // Recomputed independently in Python (math.erfc): tie groups give
  // sum(t^3 - t) = 60, var = 100/12 * (21 - 60/380) = 174.605263,
  // z = (|25.5 - 50| - 0.5) / sqrt(var) = 1.816279, p = 0.0693275754.
  std::vector<double> g1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  std::vector<double> g2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  MannWhitneyTest m = mann_whitney_u(g1, g2);
  EXPECT_FALSE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 25.5);
  EXPECT_NEAR(m.p_value, 0.0693275754, 1e-9);
  EXPECT_NEAR(m.p_value, 0.06933, 1e-5);
}

TEST(Statistics, MannWhitneyOneVersusOne) {
  // Two orderings, U = 0 or 1 with probability 1/2 each: p = min(1, 2 * 1/2).
  std::vector<double> a = {1}, b = {2};
  MannWhitneyTest m = mann_whitney_u(a, b);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 0);
  EXPECT_DOUBLE_EQ(m.p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(b, a).u, 1);
  EXPECT_DOUBLE_EQ(mann_whitney_u(b, a).p_value, 1.0);
}

TEST(Statistics, MannWhitneyOfIdenticalSamples) {
  // All values equal: nothing to rank, p = 1 and U = n_a n_b / 2 = 3.
  std::vector<double> a = {2, 2, 2}, b = {2, 2};
  MannWhitneyTest m = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(m.u, 3);
  EXPECT_DOUBLE_EQ(m.p_value, 1.0);
  // The same non-constant sample twice: every value is tied across the
  // samples (normal approximation); U = 9/2 is its mean, so p = 1.
  std::vector<double> c = {1, 2, 3};
  MannWhitneyTest same = mann_whitney_u(c, c);
  EXPECT_FALSE(same.exact);
  EXPECT_DOUBLE_EQ(same.u, 4.5);
  EXPECT_DOUBLE_EQ(same.p_value, 1.0);
}

TEST(Statistics, MannWhitneyOfEmptySampleIsUndefined) {
  std::vector<double> a = {1, 2, 3};
  for (const MannWhitneyTest& m : {mann_whitney_u({}, a), mann_whitney_u(a, {}),
                                   mann_whitney_u({}, {})}) {
    EXPECT_TRUE(std::isnan(m.u));
    EXPECT_TRUE(std::isnan(m.p_value));
    EXPECT_FALSE(m.exact);
  }
}

}  // namespace
}  // namespace dlcbench
