#include "analysis/history.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace dlcbench {
namespace {

constexpr double kZ95 = 1.959963984540054;
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
  return (std::log(headline.time_high) - std::log(headline.time_low)) / (2 * kZ95);
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
    // The drift is estimated from few differences: where it counts, the
    // test is Student's t with their number less two degrees of freedom,
    // not the normal, so that an estimate that came out low does not turn
    // into false alarms.
    const double df =
        static_cast<double>(std::max<std::size_t>(3, (sh.drift_pooled ? all.squared.size() : own.squared.size())) - 2);
    const boost::math::students_t t_dist(df);
    const double t95 = tau2 > 0 ? boost::math::quantile(t_dist, 0.975) : kZ95;
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
        const double se = std::sqrt(sa * sa + sb * sb + 2 * tau2);
        step.tested = true;
        step.ratio_low = std::exp(d - t95 * se);
        step.ratio_high = std::exp(d + t95 * se);
        if (!(se > 0)) step.p_value = d == 0 ? 1.0 : 0.0;
        else if (tau2 > 0) step.p_value = 2 * boost::math::cdf(boost::math::complement(t_dist, std::abs(d) / se));
        else step.p_value = std::erfc(std::abs(d) / se / std::sqrt(2.0));
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
        if (std::isfinite(se) && std::abs(after.log_ratio() - before.log_ratio()) < kZ95 * std::hypot(se, sh.drift * std::sqrt(2.0))) {
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
