// Descriptive statistics and the overhead estimate between two environments.
//
// Undefined quantities (the stddev of one sample, a CI with n < 2) are NaN,
// which the JSON writer turns into null and the reports print as "n/a".
#pragma once

#include <cstddef>
#include <span>

namespace dlcbench {

struct Summary {
  std::size_t n = 0;
  double mean = 0, stddev = 0, median = 0, min = 0, max = 0;
  double cv = 0;  // stddev / mean
  // Student-t 95% confidence interval of the mean.
  double ci95_low = 0, ci95_high = 0;
};

Summary summarize(std::span<const double> xs);

double mean(std::span<const double> xs);
// Sample (n - 1) standard deviation.
double stddev(std::span<const double> xs);
double median(std::span<const double> xs);

// Two-sided quantile of Student's t: the t with P(|T| <= t) = confidence.
double student_t_critical(double confidence, double df);

struct WelchTest {
  double t = 0, df = 0, p_value = 0;  // two-sided
};
// Welch's unequal-variance t-test of mean(a) == mean(b).
WelchTest welch_t_test(std::span<const double> a, std::span<const double> b);

struct RatioEstimate {
  double ratio = 0;  // mean(subject) / mean(baseline)
  // Fieller's 95% interval for the ratio of two independent means, with
  // Welch-Satterthwaite degrees of freedom. NaN when it is unbounded (the
  // baseline mean is not significantly different from zero) or n < 2.
  double ci95_low = 0, ci95_high = 0;
  WelchTest test;
};
RatioEstimate ratio_of_means(std::span<const double> subject,
                             std::span<const double> baseline);

}  // namespace dlcbench
