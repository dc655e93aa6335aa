#include "core/shift_estimates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace dlcbench {
namespace {
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
constexpr double kTailShare = 0.025;  // each side of a 95% interval
constexpr std::size_t kExactPairs = 2500;
constexpr std::size_t kExactSignedRank = 200;

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// The largest k with P(S <= k - 1) <= 2.5%, from S's null distribution
// (probabilities of 0, 1, ...); 0 when even P(S = 0) is above it.
std::size_t lower_rank(const std::vector<double>& distribution) {
  double cumulative = 0;
  std::size_t k = 0;
  for (double p : distribution) {
    cumulative += p;
    if (cumulative > kTailShare * (1 + 1e-12)) break;
    ++k;
  }
  return k;
}

// P(U = u) for the Mann-Whitney U of m values against n: the largest of all
// is one of the m with probability m / (m + n), and then beats all n.
std::vector<double> mann_whitney_distribution(std::size_t m, std::size_t n) {
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>{1.0});  // m = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> cur(n + 1);
    cur[0] = {1.0};
    for (std::size_t j = 1; j <= n; ++j) {
      const double from_subject = static_cast<double>(i) / static_cast<double>(i + j);
      cur[j].assign(i * j + 1, 0.0);
      for (std::size_t u = 0; u < prev[j].size(); ++u) cur[j][u + j] += from_subject * prev[j][u];
      for (std::size_t u = 0; u < cur[j - 1].size(); ++u) cur[j][u] += (1 - from_subject) * cur[j - 1][u];
    }
    prev = std::move(cur);
  }
  return prev[n];
}

// P(T+ = t) for Wilcoxon's signed-rank statistic of n differences: each rank
// 1..n is positive with probability 1/2.
std::vector<double> signed_rank_distribution(std::size_t n) {
  std::vector<double> p{1.0};
  for (std::size_t rank = 1; rank <= n; ++rank) {
    std::vector<double> next(p.size() + rank, 0.0);
    for (std::size_t t = 0; t < p.size(); ++t) {
      next[t] += p[t] / 2;
      next[t + rank] += p[t] / 2;
    }
    p = std::move(next);
  }
  return p;
}

// k from the normal approximation of a statistic with this mean and
// standard deviation, with a continuity correction.
std::size_t normal_lower_rank(double mean, double sd) {
  const double z = boost::math::quantile(boost::math::normal(), 1 - kTailShare);
  const double k = std::floor(mean - z * sd + 0.5);
  return k < 1 ? 0 : static_cast<std::size_t>(k);
}

// The estimate and the k-th order statistics from either end of `sorted`.
ShiftEstimate from_order_statistics(const std::vector<double>& sorted, std::size_t k, bool exact) {
  ShiftEstimate r{median_of_sorted(sorted), kNoValue, kNoValue, exact};
  if (k >= 1 && 2 * k <= sorted.size() + 1) {
    r.ci95_low = sorted[k - 1];
    r.ci95_high = sorted[sorted.size() - k];
  }
  return r;
}

double trimmed_mean(const std::vector<double>& sorted, std::size_t g) {
  double sum = 0;
  for (std::size_t i = g; i < sorted.size() - g; ++i) sum += sorted[i];
  return sum / static_cast<double>(sorted.size() - 2 * g);
}

// Yuen's squared standard error term, (n - 1) s_w^2 / (h (h - 1)), from
// the winsorized variance s_w^2.
double yuen_variance_term(const std::vector<double>& sorted, std::size_t g) {
  const std::size_t n = sorted.size(), h = n - 2 * g;
  std::vector<double> w(sorted);
  for (std::size_t i = 0; i < g; ++i) {
    w[i] = sorted[g];
    w[n - 1 - i] = sorted[n - 1 - g];
  }
  double m = 0;
  for (double x : w) m += x;
  m /= static_cast<double>(n);
  double ss = 0;
  for (double x : w) ss += (x - m) * (x - m);
  const double winsorized_variance = ss / static_cast<double>(n - 1);
  return static_cast<double>(n - 1) * winsorized_variance / (static_cast<double>(h) * static_cast<double>(h - 1));
}
}  // namespace

ShiftEstimate hodges_lehmann_shift(std::span<const double> subject, std::span<const double> baseline) {
  if (subject.empty() || baseline.empty()) return {kNoValue, kNoValue, kNoValue, false};
  std::vector<double> differences;
  differences.reserve(subject.size() * baseline.size());
  for (double x : subject)
    for (double y : baseline) differences.push_back(x - y);
  std::sort(differences.begin(), differences.end());
  const std::size_t m = subject.size(), n = baseline.size();
  if (m * n <= kExactPairs) return from_order_statistics(differences, lower_rank(mann_whitney_distribution(m, n)), true);
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  return from_order_statistics(differences, normal_lower_rank(dm * dn / 2, std::sqrt(dm * dn * (dm + dn + 1) / 12)),
                               false);
}

ShiftEstimate hodges_lehmann_paired(std::span<const double> differences) {
  if (differences.empty()) return {kNoValue, kNoValue, kNoValue, false};
  std::vector<double> walsh;
  const std::size_t n = differences.size();
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) walsh.push_back((differences[i] + differences[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  if (n <= kExactSignedRank) return from_order_statistics(walsh, lower_rank(signed_rank_distribution(n)), true);
  const double dn = static_cast<double>(n);
  return from_order_statistics(walsh, normal_lower_rank(dn * (dn + 1) / 4, std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24)),
                               false);
}

ShiftEstimate yuen_trimmed_difference(std::span<const double> subject, std::span<const double> baseline, double trim) {
  ShiftEstimate r{kNoValue, kNoValue, kNoValue, false};
  std::vector<double> a(subject.begin(), subject.end()), b(baseline.begin(), baseline.end());
  const auto cut = [trim](std::size_t n) { return static_cast<std::size_t>(std::floor(trim * static_cast<double>(n))); };
  const std::size_t ga = cut(a.size()), gb = cut(b.size());
  if (a.size() < 2 * ga + 2 || b.size() < 2 * gb + 2) {
    if (!a.empty() && !b.empty() && a.size() > 2 * ga && b.size() > 2 * gb) {
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      r.shift = trimmed_mean(a, ga) - trimmed_mean(b, gb);
    }
    return r;
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  r.shift = trimmed_mean(a, ga) - trimmed_mean(b, gb);
  const double da = yuen_variance_term(a, ga), db = yuen_variance_term(b, gb);
  const double se = std::sqrt(da + db);
  if (!(se > 0)) {
    r.ci95_low = r.ci95_high = r.shift;
    return r;
  }
  const double ha = static_cast<double>(a.size() - 2 * ga), hb = static_cast<double>(b.size() - 2 * gb);
  const double df = (da + db) * (da + db) / (da * da / (ha - 1) + db * db / (hb - 1));
  const double t = boost::math::quantile(boost::math::students_t(df), 1 - kTailShare);
  r.ci95_low = r.shift - t * se;
  r.ci95_high = r.shift + t * se;
  return r;
}

}  // namespace dlcbench
