#include "core/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace dlcbench {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double variance(std::span<const double> xs) {
  if (xs.size() < 2) return kNaN;
  const double m = mean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return ss / static_cast<double>(xs.size() - 1);
}
}  // namespace

double mean(std::span<const double> xs) {
  if (xs.empty()) return kNaN;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double stddev(std::span<const double> xs) { return std::sqrt(variance(xs)); }

double percentile(std::span<const double> xs, double q) {
  if (xs.empty()) return std::nan("");
  std::vector<double> sorted(xs.begin(), xs.end());
  std::sort(sorted.begin(), sorted.end());
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double run_value(const std::string& statistic, std::span<const double> xs) {
  if (statistic == "mean") return mean(xs);
  if (statistic == "median") return median(xs);
  if (statistic == "min") return xs.empty() ? std::nan("") : *std::min_element(xs.begin(), xs.end());
  for (const LatencyQuantile& q : kLatencyQuantiles)
    if (statistic == q.name) return percentile(xs, q.q);
  throw std::invalid_argument("unknown run statistic " + statistic);
}

double median(std::span<const double> xs) {
  if (xs.empty()) return kNaN;
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

double student_t_critical(double confidence, double df) {
  if (!(df > 0)) return kNaN;
  boost::math::students_t dist(df);
  return boost::math::quantile(dist, 0.5 + confidence / 2);
}

Summary summarize(std::span<const double> xs) {
  Summary s;
  s.n = xs.size();
  if (xs.empty()) {
    s.mean = s.stddev = s.median = s.min = s.max = s.cv = s.ci95_low = s.ci95_high = kNaN;
    return s;
  }
  s.mean = mean(xs);
  s.stddev = stddev(xs);
  s.median = median(xs);
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  s.cv = s.stddev / s.mean;
  const double half =
      student_t_critical(0.95, static_cast<double>(s.n) - 1) * s.stddev /
      std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

WelchTest welch_t_test(std::span<const double> a, std::span<const double> b) {
  WelchTest w{kNaN, kNaN, kNaN};
  if (a.size() < 2 || b.size() < 2) return w;
  const double va = variance(a) / static_cast<double>(a.size());
  const double vb = variance(b) / static_cast<double>(b.size());
  const double diff = mean(a) - mean(b);
  if (va + vb == 0) {
    // Both samples constant: equal means are certainly equal, different
    // means certainly differ.
    w.t = diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
    w.df = static_cast<double>(a.size() + b.size() - 2);
    w.p_value = diff == 0 ? 1.0 : 0.0;
    return w;
  }
  w.t = diff / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) /
         (va * va / static_cast<double>(a.size() - 1) +
          vb * vb / static_cast<double>(b.size() - 1));
  boost::math::students_t dist(w.df);
  w.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(w.t)));
  return w;
}

RatioEstimate ratio_of_means(std::span<const double> subject,
                             std::span<const double> baseline) {
  RatioEstimate r;
  const double a = mean(subject), b = mean(baseline);
  r.ratio = a / b;
  r.test = welch_t_test(subject, baseline);
  r.ci95_low = r.ci95_high = kNaN;
  if (subject.size() < 2 || baseline.size() < 2) return r;
  const double va = variance(subject) / static_cast<double>(subject.size());
  const double vb = variance(baseline) / static_cast<double>(baseline.size());
  r.ci95_df = static_cast<double>(std::min(subject.size(), baseline.size()) - 1);
  if (va + vb == 0) {
    r.ci95_low = r.ci95_high = r.ratio;
    r.interval = r.ratio > 0 ? RatioInterval::bounded : RatioInterval::reaches_zero;
    return r;
  }
  // Fieller (1954) for independent estimates: the set of rho with
  // (a - rho b)^2 <= t^2 (va + rho^2 vb).
  const double t = student_t_critical(0.95, r.ci95_df);
  const double g = t * t * vb / (b * b);
  if (g >= 1) {
    r.interval = RatioInterval::unbounded;
    return r;
  }
  const double half = (t / std::fabs(b)) * std::sqrt(va * (1 - g) + r.ratio * r.ratio * vb);
  r.ci95_low = (r.ratio - half) / (1 - g);
  r.ci95_high = (r.ratio + half) / (1 - g);
  r.interval = r.ci95_low > 0 ? RatioInterval::bounded : RatioInterval::reaches_zero;
  return r;
}

std::size_t runs_to_bound_mean(std::span<const double> values) {
  const std::size_t n = values.size();
  const double cv = std::fabs(stddev(values) / mean(values));
  std::size_t runs = std::max<std::size_t>(n + 1, 3);
  if (!std::isfinite(cv)) return runs;
  // t(runs - 1) cv / sqrt(runs) <= 0.5; the t quantile falls as runs grow.
  while (runs < 100000 &&
         student_t_critical(0.95, static_cast<double>(runs - 1)) * cv / std::sqrt(static_cast<double>(runs)) > 0.5)
    ++runs;
  return runs;
}

DifferenceEstimate difference_of_means(std::span<const double> subject, std::span<const double> baseline) {
  DifferenceEstimate d;
  d.difference = mean(subject) - mean(baseline);
  d.ci95_low = d.ci95_high = kNaN;
  if (subject.size() < 2 || baseline.size() < 2) return d;
  const WelchTest w = welch_t_test(subject, baseline);
  const double se = std::sqrt(variance(subject) / static_cast<double>(subject.size()) +
                              variance(baseline) / static_cast<double>(baseline.size()));
  const double half = se == 0 ? 0 : student_t_critical(0.95, w.df) * se;
  d.ci95_low = d.difference - half;
  d.ci95_high = d.difference + half;
  return d;
}

double median_absolute_deviation(std::span<const double> xs) {
  if (xs.empty()) return kNaN;
  const double m = median(xs);
  std::vector<double> dev;
  dev.reserve(xs.size());
  for (double x : xs) dev.push_back(std::fabs(x - m));
  return median(dev);
}

std::vector<double> modified_z_scores(std::span<const double> xs) {
  std::vector<double> z(xs.size(), 0.0);
  if (xs.empty()) return z;
  const double m = median(xs);
  const double mad = median_absolute_deviation(xs);
  // 0.6745 is the 0.75 quantile of the standard normal, so 0.6745 / MAD is
  // 1 / sigma for normal data; likewise 1.253314 = sqrt(pi / 2) turns a
  // normal's mean absolute deviation into sigma.
  double scale = 0;  // the estimate of sigma that divides x_i - median
  if (mad > 0) {
    scale = mad / 0.6745;
  } else {
    double sum = 0;
    for (double x : xs) sum += std::fabs(x - m);
    scale = 1.253314 * sum / static_cast<double>(xs.size());
  }
  if (scale == 0) return z;  // every value is the median
  for (std::size_t i = 0; i < xs.size(); ++i) z[i] = (xs[i] - m) / scale;
  return z;
}

std::vector<std::size_t> outlier_indices(std::span<const double> xs, double threshold) {
  std::vector<std::size_t> out;
  if (xs.size() < kMinOutlierSample) return out;
  const std::vector<double> z = modified_z_scores(xs);
  for (std::size_t i = 0; i < z.size(); ++i)
    if (std::fabs(z[i]) > threshold) out.push_back(i);
  return out;
}

BoxPlot box_plot(std::span<const double> xs, std::span<const std::size_t> outliers) {
  std::vector<double> finite;
  for (double x : xs)
    if (std::isfinite(x)) finite.push_back(x);
  BoxPlot b{kNaN, kNaN, kNaN, kNaN, kNaN};
  if (finite.empty()) return b;
  b.q1 = percentile(finite, 0.25);
  b.median = percentile(finite, 0.5);
  b.q3 = percentile(finite, 0.75);
  b.whisker_low = b.q1;
  b.whisker_high = b.q3;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!std::isfinite(xs[i]) || std::find(outliers.begin(), outliers.end(), i) != outliers.end()) continue;
    b.whisker_low = std::min(b.whisker_low, xs[i]);
    b.whisker_high = std::max(b.whisker_high, xs[i]);
  }
  return b;
}

namespace {
// Number of orderings of n_a a's and n_b b's in which U_a = u, for u in
// [0, n_a n_b]. The largest value is either an a, which beats all n_b b's,
// or a b, which beats nobody, so
//   c(i, j, u) = c(i - 1, j, u - j) + c(i, j - 1, u),
// with c(0, j, 0) = c(i, 0, 0) = 1. The counts sum to C(n_a + n_b, n_a),
// at most C(40, 20) ~ 1.4e11 here, so 64-bit integers hold them exactly.
std::vector<std::uint64_t> mann_whitney_counts(std::size_t na, std::size_t nb) {
  using Row = std::vector<std::vector<std::uint64_t>>;  // indexed by j, then u
  Row prev(nb + 1, std::vector<std::uint64_t>{1});      // i = 0
  for (std::size_t i = 1; i <= na; ++i) {
    Row cur(nb + 1);
    cur[0] = {1};
    for (std::size_t j = 1; j <= nb; ++j) {
      cur[j].assign(i * j + 1, 0);
      for (std::size_t u = 0; u < prev[j].size(); ++u) cur[j][u + j] += prev[j][u];
      for (std::size_t u = 0; u < cur[j - 1].size(); ++u) cur[j][u] += cur[j - 1][u];
    }
    prev = std::move(cur);
  }
  return prev[nb];
}
}  // namespace

MannWhitneyTest mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  MannWhitneyTest r{kNaN, kNaN, false};
  if (a.empty() || b.empty()) return r;
  const std::size_t na = a.size(), nb = b.size(), n = na + nb;

  // Midranks of the pooled sample; sample a occupies pooled indices [0, na).
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return pooled[x] < pooled[y]; });
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  std::size_t groups = 0;
  for (std::size_t lo = 0; lo < n;) {
    std::size_t hi = lo + 1;
    while (hi < n && pooled[order[hi]] == pooled[order[lo]]) ++hi;
    // Positions lo..hi-1 hold ranks lo+1..hi; each gets their average.
    const double midrank = static_cast<double>(lo + 1 + hi) / 2;
    for (std::size_t k = lo; k < hi; ++k)
      if (order[k] < na) rank_sum_a += midrank;
    const double t = static_cast<double>(hi - lo);
    tie_term += t * t * t - t;
    ++groups;
    lo = hi;
  }
  const double dna = static_cast<double>(na), dnb = static_cast<double>(nb);
  r.u = rank_sum_a - dna * (dna + 1) / 2;

  // One value shared by everything: the ranks say nothing against H0, and
  // the normal approximation's variance would be 0.
  if (groups == 1) {
    r.p_value = 1.0;
    return r;
  }

  if (groups == n && n <= 40) {
    // No ties, so U is an integer and its null distribution does not depend
    // on the data; count it exactly.
    const std::vector<std::uint64_t> counts = mann_whitney_counts(na, nb);
    const auto u = static_cast<std::size_t>(std::llround(r.u));
    std::uint64_t total = 0, at_most = 0, at_least = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k <= u) at_most += counts[k];
      if (k >= u) at_least += counts[k];
    }
    r.p_value = std::min(1.0, 2 * static_cast<double>(std::min(at_most, at_least)) /
                                  static_cast<double>(total));
    r.exact = true;
    return r;
  }

  // Normal approximation. Midranks shrink the variance of U by the factor
  // 1 - sum(t^3 - t) / (N^3 - N) over tie groups of size t, written here as
  // n_a n_b / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))).
  const double dn = static_cast<double>(n);
  const double mu = dna * dnb / 2;
  const double var = dna * dnb / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (!(var > 0)) return r;  // unreachable with two distinct values; stay NaN
  const double sd = std::sqrt(var);
  boost::math::normal std_normal;
  // The usual 0.5 continuity correction (also R's and SciPy's default), moving
  // u half a step away from mu: P(U <= u) ~ Phi((u + 0.5 - mu) / sd).
  const double p_le = boost::math::cdf(std_normal, (r.u + 0.5 - mu) / sd);
  const double p_ge = boost::math::cdf(boost::math::complement(std_normal, (r.u - 0.5 - mu) / sd));
  r.p_value = std::min(1.0, 2 * std::min(p_le, p_ge));
  return r;
}

double fisher_exact_p(std::size_t a, std::size_t n_a, std::size_t b, std::size_t n_b) {
  if (n_a == 0 || n_b == 0 || a > n_a || b > n_b) return 1.0;
  const auto lchoose = [](double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); };
  const std::size_t hits = a + b;
  const double na = static_cast<double>(n_a), nb = static_cast<double>(n_b);
  const double total = lchoose(na + nb, static_cast<double>(hits));
  // P(the first sample holds x of the hits), hypergeometric.
  const auto probability = [&](std::size_t x) {
    return std::exp(lchoose(na, static_cast<double>(x)) + lchoose(nb, static_cast<double>(hits - x)) - total);
  };
  const double seen = probability(a);
  double p = 0;
  for (std::size_t x = hits > n_b ? hits - n_b : 0; x <= std::min(hits, n_a); ++x) {
    const double px = probability(x);
    if (px <= seen * (1 + 1e-7)) p += px;  // the usual relative tolerance for ties (as R's fisher.test)
  }
  return std::min(1.0, p);
}

}  // namespace dlcbench
