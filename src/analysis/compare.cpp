#include "analysis/compare.h"

#include <cmath>

#include <fmt/format.h>

namespace dlcbench {
namespace {

const CaseAnalysis* find_case(const Analysis& a, const std::string& id) {
  for (const auto& c : a.cases)
    if (c.case_id == id) return &c;
  return nullptr;
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

}  // namespace

Comparison compare_runs(const Analysis& a, const Analysis& b, const std::string& run_a, const std::string& run_b) {
  Comparison out;
  out.run_a = run_a;
  out.run_b = run_b;
  for (const auto& ca : a.cases) {
    const CaseAnalysis* cb = find_case(b, ca.case_id);
    if (!cb) {
      out.notes.push_back(fmt::format("case {} is only in {}", ca.case_id, run_a));
      continue;
    }
    for (const auto& ea : ca.envs) {
      const EnvironmentStats* eb = find_environment(*cb, ea.env);
      if (!eb) {
        out.notes.push_back(fmt::format("{} in {} is only in {}", ca.case_id, ea.env, run_a));
        continue;
      }
      if (ea.run_values.empty() || eb->run_values.empty()) {
        out.notes.push_back(fmt::format("{} in {}: no successful runs in {}", ca.case_id, ea.env,
                                        ea.run_values.empty() ? run_a : run_b));
        continue;
      }
      RunComparison row;
      row.case_id = ca.case_id;
      row.env = ea.env;
      row.unit = ca.unit;
      row.a = ea;
      row.b = *eb;
      row.change = compare_figures(ea.env, {eb->run_values, {}}, {ea.run_values, {}},
                                   ComparisonWording::difference, a.margin);
      // Two runs differ on purpose (that is why they are compared): every
      // difference is shown, none stops the comparison.
      if (ea.fingerprint && eb->fingerprint) row.differences = compare_fingerprints(*ea.fingerprint, *eb->fingerprint);
      out.rows.push_back(std::move(row));
    }
  }
  for (const auto& cb : b.cases)
    if (!find_case(a, cb.case_id)) out.notes.push_back(fmt::format("case {} is only in {}", cb.case_id, run_b));
  return out;
}

std::string render_comparison(const Comparison& c) {
  std::string out = fmt::format("A = {}\nB = {}\nB relative to A, per case and environment (B/A: Hodges-Lehmann ratio of run "
                                "values with the exact Mann-Whitney 95% CI; the means' ratio with Fieller's "
                                "CI beside it; + is slower)\n\n",
                                c.run_a, c.run_b);
  out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:>8}  {}\n", "case", "env", "A mean", "B mean", "B/A", "verdict");
  for (const auto& r : c.rows) {
    out += fmt::format("  {:<26} {:<12} {:>10} {:>10} {:>8.4f}  {}\n", r.case_id, r.env, num(r.a.runs.mean),
                       num(r.b.runs.mean), r.change.robust.ratio, r.change.verdict_text);
    for (const auto& d : r.differences)
      out += fmt::format("      differs: {}: A has {}, B has {}\n", d.field, d.baseline_value, d.other_value);
  }
  if (c.rows.empty()) out += "  (no case and environment is in both runs)\n";
  for (const auto& n : c.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace dlcbench
