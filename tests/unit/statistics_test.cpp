// Expected values come from published worked examples or from quantiles in
// standard t tables; each test says which.
#include "core/statistics.h"

#include <cmath>
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
  const double t = student_t_critical(0.95, r.test.df);
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
  EXPECT_TRUE(std::isnan(r.ci95_low));
  EXPECT_TRUE(std::isnan(r.ci95_high));
}

TEST(Statistics, RatioWithTooFewSamplesHasNoInterval) {
  std::vector<double> one = {1.0}, two = {1.0, 1.2};
  RatioEstimate r = ratio_of_means(one, two);
  EXPECT_NEAR(r.ratio, 1 / 1.1, 1e-12);
  EXPECT_TRUE(std::isnan(r.ci95_low));
}

}  // namespace
}  // namespace dlcbench
