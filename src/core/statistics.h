// Descriptive statistics and the overhead estimate between two environments.
//
// Undefined quantities (the stddev of one sample, a CI with n < 2) are NaN,
// which the JSON writer turns into null and the reports print as "n/a".
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace dlcbench {

// The standard normal's 97.5% quantile: a 95% interval is +- this many
// standard errors.
inline constexpr double kNormalQuantile975 = 1.959963984540054;

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
// The q-quantile (0..1) by linear interpolation between order statistics
// (type 7, as R and NumPy default); NaN for no values.
double percentile(std::span<const double> xs, double q);
// The quantiles a latency is reported at (serve), by name: "p50", "p90",
// "p99", "p99.9". Each is also a run statistic.
struct LatencyQuantile {
  const char* name;
  double q;
};
inline constexpr LatencyQuantile kLatencyQuantiles[] = {{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}};

// The value one launch contributes, from its measured samples: "mean",
// "median", "min" (best of N, as STREAM reports) or a latency quantile
// ("p99"). Throws
// std::invalid_argument for another name.
double run_value(const std::string& statistic, std::span<const double> xs);

// Two-sided quantile of Student's t: the t with P(|T| <= t) = confidence.
double student_t_critical(double confidence, double df);

struct WelchTest {
  double t = 0, df = 0, p_value = 0;  // two-sided
};
// Welch's unequal-variance t-test of mean(a) == mean(b).
WelchTest welch_t_test(std::span<const double> a, std::span<const double> b);

// What Fieller's interval for a ratio of means turned out to be.
enum class RatioInterval {
  none,          // fewer than two values on a side: no interval
  bounded,       // 0 < low <= high < infinity
  // Bounded, but its lower end is at or below zero: the subject's mean is
  // not distinguishable from zero, so ratios no time can have are inside it.
  reaches_zero,
  // The baseline's mean is not distinguishable from zero (Fieller's g >= 1):
  // the set of ratios is unbounded.
  unbounded,
};

struct RatioEstimate {
  double ratio = 0;  // mean(subject) / mean(baseline)
  // Fieller's 95% interval for the ratio of two independent means. Its t has
  // min(n_subject, n_baseline) - 1 degrees of freedom: the Welch-Satterthwaite
  // df depends on both variances, so a quiet subject next to a noisy
  // baseline collapsed it toward n - 1 of one side and the same baseline was
  // judged "too noisy" for one environment and not for the next; the
  // smaller df is never below Welch's, so the interval stays valid
  // (conservative), and the judgement of one baseline is the same for every
  // environment with as many runs. NaN when interval is none or unbounded.
  double ci95_low = 0, ci95_high = 0;
  double ci95_df = 0;  // of the interval's t
  RatioInterval interval = RatioInterval::none;
  WelchTest test;
};
RatioEstimate ratio_of_means(std::span<const double> subject,
                             std::span<const double> baseline);

// Runs at which these values' own 95% interval of the mean would be within
// +-50% of it, from their mean and stddev (at least n + 1): what a baseline
// needs for Fieller's interval to be bounded, and a subject for its lower
// end to stay above zero, with room to spare.
std::size_t runs_to_bound_mean(std::span<const double> values);

struct DifferenceEstimate {
  double difference = 0;  // mean(subject) - mean(baseline)
  // Welch's 95% interval of the difference; NaN with fewer than two values on a side.
  double ci95_low = 0, ci95_high = 0;
};
DifferenceEstimate difference_of_means(std::span<const double> subject, std::span<const double> baseline);

// Raw median absolute deviation, median(|x_i - median(x)|), without the
// 1.4826 factor that would make it estimate a normal sigma. NaN when empty.
double median_absolute_deviation(std::span<const double> xs);

// Modified z-scores of Iglewicz and Hoaglin (1993):
//   M_i = 0.6745 (x_i - median) / MAD.
// When MAD is 0 (more than half the values are equal) the scale falls back to
// the mean absolute deviation from the median, as IBM SPSS does:
//   M_i = (x_i - median) / (1.253314 MeanAD).
// When both are 0 every value equals the median and every score is 0.
// One score per input, in input order; empty input gives an empty vector.
std::vector<double> modified_z_scores(std::span<const double> xs);

// Indices (ascending) of the values with |M_i| > threshold; Iglewicz and
// Hoaglin recommend 3.5. Below five values the MAD rests on one or two
// distances (with three values, any one off the middle by more than 5x the
// other's distance is "an outlier"), so nothing is flagged.
inline constexpr std::size_t kMinOutlierSample = 5;
std::vector<std::size_t> outlier_indices(std::span<const double> xs,
                                         double threshold = 3.5);

// What a box plot of the values draws: the quartiles (type 7, as percentile)
// and the whiskers, which reach the furthest values not among `outliers`
// (indices into the values, as outlier_indices gives them), so the plot and
// the tables flag runs by one rule. NaN for no finite values.
struct BoxPlot {
  double q1 = 0, median = 0, q3 = 0;
  double whisker_low = 0, whisker_high = 0;
};
BoxPlot box_plot(std::span<const double> xs, std::span<const std::size_t> outliers);

struct MannWhitneyTest {
  double u = 0;        // U of sample a: R_a - n_a (n_a + 1) / 2, midranks for ties
  double p_value = 0;  // two-sided
  bool exact = false;  // p from the exact permutation distribution of U
};
// Two-sided Mann-Whitney U test (Wilcoxon rank-sum) of a against b.
// p = min(1, 2 min(P(U <= u), P(U >= u))), from the exact distribution of U
// when there are no ties and n_a + n_b <= 40, otherwise from the normal
// approximation with tie-corrected variance and a 0.5 continuity correction.
// An empty sample gives u = p = NaN. When all values in both samples are
// equal the ranks carry no information and p = 1 (u = n_a n_b / 2).
MannWhitneyTest mann_whitney_u(std::span<const double> a, std::span<const double> b);

// Fisher's exact test of a 2 x 2 table: `a` of `n_a` against `b` of `n_b`
// (e.g. disturbed runs of two environments). Two-sided: the probability,
// with the margins fixed, of every table no more likely than the one seen.
// 1 when either sample is empty.
double fisher_exact_p(std::size_t a, std::size_t n_a, std::size_t b, std::size_t n_b);

}  // namespace dlcbench
