#include "analysis/history.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

#include "core/statistics.h"

namespace dlcbench {
namespace {

// A series needs this many neighbouring differences to estimate its own
// drift; fewer take every series' together.
constexpr std::size_t kOwnDriftDifferences = 3;

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The neighbouring differences of a series' tested pairs, squared, and the
// variance the two runs' own intervals give each.
struct Differences {
  std::vector<double> squared, own;
};

Differences differences(const HistorySeries& s) {
  Differences out;
  for (std::size_t i = 1; i < s.entries.size(); ++i) {
    const auto& a = s.entries[i - 1];
    const auto& b = s.entries[i];
    const double sa = a.standard_error(), sb = b.standard_error();
    if (!std::isfinite(sa) || !std::isfinite(sb)) continue;
    const double d = b.log_ratio() - a.log_ratio();
    out.squared.push_back(d * d);
    out.own.push_back(sa * sa + sb * sb);
  }
  return out;
}

// tau^2 from the differences: their variance, robustly (the median of the
// squares over the median of a chi-square with one degree of freedom, so
// that a change among them, or one run off and the next back, moves it
// little), less what the runs' own intervals give, halved (each difference
// has two runs' drift).
double drift_variance(const Differences& d) {
  if (d.squared.empty()) return 0;
  constexpr double kChiSquareMedian = 0.45493642311957283;
  return std::max(0.0, (median(d.squared) / kChiSquareMedian - median(d.own)) / 2);
}

}  // namespace

double HistoryEntry::log_ratio() const { return std::log(headline.time_ratio); }

double HistoryEntry::standard_error() const {
  if (!headline.bounded() || headline.time_low <= 0 || headline.time_high <= 0) return std::nan("");
  return (std::log(headline.time_high) - std::log(headline.time_low)) / (2 * kNormalQuantile975);
}

std::vector<FactChange> changed_facts(const std::map<std::string, std::string>& before,
                                      const std::map<std::string, std::string>& after) {
  std::vector<FactChange> out;
  for (const auto& [name, value] : after) {
    const auto it = before.find(name);
    const std::string old = it == before.end() ? "" : it->second;
    if (old != value) out.push_back({name, old, value});
  }
  for (const auto& [name, value] : before)
    if (!after.contains(name)) out.push_back({name, value, ""});
  return out;
}

History analyze_history(std::vector<HistorySeries> series, double alpha) {
  History h;
  h.alpha = alpha;
  // The drift every series shows together, for those too short for their own.
  Differences all;
  for (const auto& s : series) {
    const auto d = differences(s);
    all.squared.insert(all.squared.end(), d.squared.begin(), d.squared.end());
    all.own.insert(all.own.end(), d.own.begin(), d.own.end());
  }
  const double pooled = drift_variance(all);

  struct Test {
    std::size_t series, step;
    double p;
  };
  std::vector<Test> tests;
  for (auto& s : series) {
    SeriesHistory sh;
    const Differences own = differences(s);
    sh.drift_pooled = own.squared.size() < kOwnDriftDifferences;
    const double tau2 = sh.drift_pooled ? pooled : drift_variance(own);
    // The drift is estimated from few differences, by their median: its part
    // of a step's variance has few degrees of freedom, counted as half their
    // number (the median estimates a variance with about 0.37 of the mean's
    // efficiency; the simulations of tests/unit/history_test.cpp hold the
    // false alarms with it).
    const std::size_t differences_used = sh.drift_pooled ? all.squared.size() : own.squared.size();
    const double drift_df = std::max(1.0, 0.5 * static_cast<double>(differences_used));
    sh.drift = std::sqrt(tau2);
    for (std::size_t i = 1; i < s.entries.size(); ++i) {
      const auto& a = s.entries[i - 1];
      const auto& b = s.entries[i];
      HistoryStep step;
      step.to = i;
      step.changed = changed_facts(a.facts, b.facts);
      const double sa = a.standard_error(), sb = b.standard_error();
      const double d = b.log_ratio() - a.log_ratio();
      step.ratio = std::exp(d);
      if (std::isfinite(sa) && std::isfinite(sb) && std::isfinite(d)) {
        const double own_variance = sa * sa + sb * sb, drift_variance_of_step = 2 * tau2;
        const double se = std::sqrt(own_variance + drift_variance_of_step);
        // Student's t with Welch-Satterthwaite's degrees of freedom: the
        // runs' own intervals count as known, the drift as estimated. Where
        // the drift is most of the variance and came out low by chance, the
        // wider t keeps that from turning into false alarms; where it is
        // little, the test is nearly the normal one.
        const double df = drift_variance_of_step > 0
                              ? se * se * se * se / (drift_variance_of_step * drift_variance_of_step / drift_df)
                              : std::numeric_limits<double>::infinity();
        const bool normal = !std::isfinite(df) || df > 1e6;
        const double t95 = normal ? kNormalQuantile975 : boost::math::quantile(boost::math::students_t(df), 0.975);
        step.tested = true;
        step.ratio_low = std::exp(d - t95 * se);
        step.ratio_high = std::exp(d + t95 * se);
        if (!(se > 0)) step.p_value = d == 0 ? 1.0 : 0.0;
        else if (normal) step.p_value = std::erfc(std::abs(d) / se / std::sqrt(2.0));
        else step.p_value = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), std::abs(d) / se));
        tests.push_back({h.series.size(), sh.steps.size(), step.p_value});
      }
      sh.steps.push_back(std::move(step));
    }
    sh.series = std::move(s);
    h.series.push_back(std::move(sh));
  }
  // Holm: the smallest p against alpha/m, the next against alpha/(m-1), ...
  // until one is not below its bound.
  std::sort(tests.begin(), tests.end(), [](const Test& x, const Test& y) { return x.p < y.p; });
  h.tests = tests.size();
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (tests[i].p > alpha / static_cast<double>(tests.size() - i)) break;
    h.series[tests[i].series].steps[tests[i].step].flagged = true;
  }
  // A flagged step that the next flagged step undoes: one run off.
  for (auto& sh : h.series) {
    for (std::size_t i = 0; i + 1 < sh.steps.size(); ++i) {
      HistoryStep& up = sh.steps[i];
      HistoryStep& back = sh.steps[i + 1];
      if (up.flagged && back.flagged && (std::log(up.ratio) > 0) != (std::log(back.ratio) > 0)) {
        const auto& before = sh.series.entries[up.to - 1];
        const auto& after = sh.series.entries[back.to];
        // Back to where it was: the run between is the odd one.
        const double se = std::hypot(before.standard_error(), after.standard_error());
        if (std::isfinite(se) && std::abs(after.log_ratio() - before.log_ratio()) < kNormalQuantile975 * std::hypot(se, sh.drift * std::sqrt(2.0))) {
          up.transient = back.transient = true;
          ++h.transients;
        }
      }
    }
    for (const auto& st : sh.steps)
      if (st.flagged && !st.transient) ++h.flagged;
  }
  return h;
}

}  // namespace dlcbench
