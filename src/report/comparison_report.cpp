#include "report/comparison_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/json_report.h"

namespace dlcbench {
namespace {

std::string compared_figure(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

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
  std::string out = fmt::format("A = {}\nB = {}\nB relative to A, per case and environment (B/A: Hodges-Lehmann ratio of run "
                                "values with the exact Mann-Whitney 95% CI; the means' ratio with Fieller's "
                                "CI beside it; + is slower)\n\n",
                                c.run_a, c.run_b);
  out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:<10} {:>8}  {}\n", "case", "env", "A mean", "B mean", "unit",
                     "B/A", "verdict");
  for (const auto& r : c.rows) {
    out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:<10} {:>8.4f}  {}\n", r.case_id, r.env,
                       compared_figure(r.a.runs.mean), compared_figure(r.b.runs.mean), r.unit, r.change.robust.ratio,
                       r.change.verdict_text);
    for (const auto& d : r.differences)
      out += fmt::format("      differs: {}: A has {}, B has {}\n", d.field, d.baseline_value, d.other_value);
  }
  if (c.rows.empty()) out += "  (no case and environment is in both runs)\n";
  for (const auto& n : c.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string render_comparison_markdown(const Comparison& c) {
  std::string out = fmt::format("# B relative to A\n\n- A: `{}`\n- B: `{}`\n\nB/A is the Hodges-Lehmann ratio of run "
                                "values with the exact Mann-Whitney 95% CI; above 1 is slower.\n\n",
                                c.run_a, c.run_b);
  out += "| case | env | A mean | B mean | unit | B/A (95% CI) | verdict |\n|---|---|---:|---:|---|---:|---|\n";
  for (const auto& r : c.rows)
    out += fmt::format("| {} | {} | {} | {} | {} | {:.4f} ({} .. {}) | {} |\n", r.case_id, r.env,
                       compared_figure(r.a.runs.mean), compared_figure(r.b.runs.mean), r.unit, r.change.robust.ratio,
                       compared_figure(r.change.robust.ci95_low), compared_figure(r.change.robust.ci95_high),
                       r.change.verdict_text);
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
                    {"a", compared_runs_json(r.a)},
                    {"b", compared_runs_json(r.b)},
                    {"change", overhead_json(r.change)},
                    {"differences", differences}});
  }
  return {{"a", c.run_a}, {"b", c.run_b}, {"rows", rows}, {"notes", c.notes}};
}

}  // namespace dlcbench
