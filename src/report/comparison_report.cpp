#include "report/comparison_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/json_report.h"
#include "report/report_model.h"

namespace dlcbench {
namespace {

std::string compared_figure(double v) {
  if (!std::isfinite(v)) return "n/a";
  // Seconds to five places; a rate (thousands of events/s) to as many digits.
  return std::fabs(v) >= 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.5f}", v);
}

std::string compared_change(const Overhead& o) {
  return std::isfinite(o.headline.time_ratio) ? fmt::format("{:+.1f}%", 100 * o.headline.change()) : "n/a";
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json compared_runs_json(const EnvironmentStats& e) {
  return {{"n", e.runs.n},
          {"mean", finite_or_null(e.runs.mean)},
          {"median", finite_or_null(e.runs.median)},
          {"ci95_low", finite_or_null(e.runs.ci95_low)},
          {"ci95_high", finite_or_null(e.runs.ci95_high)},
          {"run_values", e.run_values}};
}

}  // namespace

std::string render_comparison(const Comparison& c) {
  std::string out = fmt::format("A = {}\nB = {}\nB relative to A, per case and environment, in each case's own "
                                "unit (the change: Hodges-Lehmann over run values with the exact Mann-Whitney 95% "
                                "CI; the means' with Fieller's CI beside it). {}\n\n",
                                c.run_a, c.run_b, kChangeConvention);
  out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:<10} {:>8}  {}\n", "case", "env", "A mean", "B mean", "unit",
                     "B vs A", "verdict");
  for (const auto& r : c.rows) {
    out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:<10} {:>8}  {}\n", r.case_id, r.env,
                       compared_figure(r.a_figure), compared_figure(r.b_figure), r.unit, compared_change(r.change),
                       r.change.verdict_text);
    for (const auto& d : r.differences)
      out += fmt::format("      differs: {}: A has {}, B has {}\n", d.field, d.baseline_value, d.other_value);
  }
  if (c.rows.empty()) out += "  (no case and environment is in both runs)\n";
  for (const auto& n : c.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string render_comparison_markdown(const Comparison& c) {
  std::string out = fmt::format("# B relative to A\n\n- A: `{}`\n- B: `{}`\n\nMeans in each case's own unit; the "
                                "change is the Hodges-Lehmann estimate over run values with the exact Mann-Whitney "
                                "95% CI. {}\n\n",
                                c.run_a, c.run_b, kChangeConvention);
  out += "| case | env | A mean | B mean | unit | B vs A (95% CI) | verdict |\n|---|---|---:|---:|---|---:|---|\n";
  for (const auto& r : c.rows)
    out += fmt::format("| {} | {} | {} | {} | {} | {} ({}) | {} |\n", r.case_id, r.env, compared_figure(r.a_figure),
                       compared_figure(r.b_figure), r.unit, compared_change(r.change),
                       headline_interval_words(r.change.headline), r.change.verdict_text);
  if (c.rows.empty()) out += "\nNo case and environment is in both runs.\n";
  bool differences = false;
  for (const auto& r : c.rows)
    for (const auto& d : r.differences) {
      if (!differences) out += "\n## What differs between the runs\n\n";
      differences = true;
      out += fmt::format("- {} in {}: {}: A has `{}`, B has `{}`\n", r.case_id, r.env, d.field, d.baseline_value,
                         d.other_value);
    }
  if (!c.notes.empty()) out += "\n## Notes\n\n";
  for (const auto& n : c.notes) out += fmt::format("- {}\n", n);
  return out;
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    nlohmann::json differences = nlohmann::json::array();
    for (const auto& d : r.differences)
      differences.push_back({{"field", d.field}, {"a", d.baseline_value}, {"b", d.other_value}});
    rows.push_back({{"case", r.case_id},
                    {"env", r.env},
                    {"unit", r.unit},
                    {"a_figure", finite_or_null(r.a_figure)},
                    {"b_figure", finite_or_null(r.b_figure)},
                    {"a", compared_runs_json(r.a)},
                    {"b", compared_runs_json(r.b)},
                    {"change", overhead_json(r.change)},
                    {"differences", differences}});
  }
  return {{"a", c.run_a}, {"b", c.run_b}, {"rows", rows}, {"notes", c.notes}};
}

}  // namespace dlcbench
