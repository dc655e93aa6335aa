#include "report/figures.h"

#include <algorithm>

#include <fmt/format.h>

namespace dlcbench {

std::string format_seconds(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

std::string format_percent_change(double ratio) { return format_change(ratio - 1); }

std::string format_change(double share) {
  if (!std::isfinite(share)) return "n/a";
  const double percent = 100 * share;
  return std::fabs(percent) < 0.05 ? "+0.0%" : fmt::format("{:+.1f}%", percent);  // never "-0.0%"
}

std::string format_mean_ci(const Summary& s) {
  if (s.n == 0 || !std::isfinite(s.mean)) return "n/a";
  if (!std::isfinite(s.ci95_low) || !std::isfinite(s.ci95_high)) return format_seconds(s.mean) + " (n/a)";
  return fmt::format("{} ({} .. {})", format_seconds(s.mean), format_seconds(s.ci95_low), format_seconds(s.ci95_high));
}

std::string format_cv(const Summary& s) {
  // One run has no spread: its CV is n/a, not 0.0%.
  return s.n > 1 && std::isfinite(s.cv) ? fmt::format("{:.1f}%", 100 * s.cv) : "n/a";
}

double figure_of(const CaseAnalysis& c, double seconds) {
  if (!c.micro) return seconds;
  // Without the work of an operation (no sample carried it) there is no rate.
  if (c.figure_is_rate && !(c.work > 0)) return NAN;
  if (c.figure_is_rate && !(seconds > 0)) return std::isnan(seconds) ? seconds : INFINITY;
  return c.figure(seconds);
}

double fraction_of_limit(const CaseAnalysis& c, const EnvironmentStats& e) {
  if (!c.micro || !c.figure_is_rate || !e.estimated_limit || e.runs.n == 0) return NAN;
  return figure_of(c, e.runs.mean) / *e.estimated_limit;
}

FigureSummary figure_summary(const CaseAnalysis& c, const Summary& seconds) {
  FigureSummary f;
  f.n = seconds.n;
  if (seconds.n == 0) return f;
  f.mean = figure_of(c, seconds.mean);
  f.median = figure_of(c, seconds.median);
  f.best = figure_of(c, seconds.min);
  f.worst = figure_of(c, seconds.max);
  const double a = figure_of(c, seconds.ci95_low), b = figure_of(c, seconds.ci95_high);
  // A rate falls as the time rises: the interval's ends, and min and max, swap.
  f.min = c.figure_is_rate ? f.worst : f.best;
  f.max = c.figure_is_rate ? f.best : f.worst;
  f.ci95_low = c.figure_is_rate ? b : a;
  f.ci95_high = c.figure_is_rate ? a : b;
  return f;
}

const char* better_words(const CaseAnalysis& c) { return c.figure_is_rate ? "higher is better" : "lower is better"; }

std::string work_text(const CaseAnalysis& c) {
  if (!c.figure_is_rate || !(c.work > 0) || !std::isfinite(c.work)) return "";
  std::string unit = c.figure_unit;
  if (unit.size() > 2 && unit.ends_with("/s")) unit.resize(unit.size() - 2);
  const double v = c.work / c.figure_scale;
  return fmt::format("{} {}", format_figure(v, figure_decimals(v)), unit);
}

int figure_decimals(double typical) {
  if (!std::isfinite(typical) || typical == 0) return 1;
  const int digits = static_cast<int>(std::floor(std::log10(std::fabs(typical))));
  return std::clamp(3 - digits, 1, 9);
}

std::string format_figure(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  const std::string out = fmt::format("{:.{}f}", v, decimals);
  // Never "-0.0" for a figure that rounds to zero.
  return out.find_first_not_of("-0.") == std::string::npos && out.front() == '-' ? out.substr(1) : out;
}

std::string format_case_mean_ci(const CaseAnalysis& c, const Summary& s) {
  if (!c.micro) return format_mean_ci(s);
  const FigureSummary f = figure_summary(c, s);
  if (f.n == 0 || !std::isfinite(f.mean)) return "n/a";
  const int d = figure_decimals(f.mean);
  const std::string mean = fmt::format("{} {}", format_figure(f.mean, d), c.figure_unit);
  if (s.n < 2 || (!std::isfinite(f.ci95_low) && !std::isfinite(f.ci95_high))) return mean + " (n/a)";
  return fmt::format("{} ({} .. {})", mean, format_figure(f.ci95_low, d), format_figure(f.ci95_high, d));
}

std::string format_case_value(const CaseAnalysis& c, double seconds, int decimals) {
  return c.micro ? format_figure(figure_of(c, seconds), decimals) : format_seconds(seconds);
}

}  // namespace dlcbench
