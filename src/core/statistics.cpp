#include "core/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

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
  if (va + vb == 0) {
    r.ci95_low = r.ci95_high = r.ratio;
    return r;
  }
  // Fieller (1954) for independent estimates: the set of rho with
  // (a - rho b)^2 <= t^2 (va + rho^2 vb).
  const double t = student_t_critical(0.95, r.test.df);
  const double g = t * t * vb / (b * b);
  if (g >= 1) return r;  // unbounded interval
  const double half = (t / std::fabs(b)) * std::sqrt(va * (1 - g) + r.ratio * r.ratio * vb);
  r.ci95_low = (r.ratio - half) / (1 - g);
  r.ci95_high = (r.ratio + half) / (1 - g);
  return r;
}

}  // namespace dlcbench
