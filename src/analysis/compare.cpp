#include "analysis/compare.h"

#include <fmt/format.h>

namespace dlcbench {
namespace {

const CaseAnalysis* find_case(const Analysis& a, const std::string& id) {
  for (const auto& c : a.cases)
    if (c.case_id == id) return &c;
  return nullptr;
}

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
      row.unit = figure_terms(ca).unit;
      row.a_figure = ca.micro ? ca.figure(ea.runs.mean) : ea.runs.mean;
      row.b_figure = ca.micro ? ca.figure(eb->runs.mean) : eb->runs.mean;
      row.a = ea;
      row.b = *eb;
      row.change = compare_figures(ea.env, {eb->run_values, {}}, {ea.run_values, {}},
                                   ComparisonWording::difference, a.margin, figure_terms(ca));
      // Two runs differ on purpose (that is why they are compared): every
      // difference is shown, none stops the comparison.
      if (ea.fingerprint && eb->fingerprint) row.differences = compare_fingerprints(*ea.fingerprint, *eb->fingerprint);
      out.rows.push_back(std::move(row));
    }
  }
  for (const auto& cb : b.cases) {
    const CaseAnalysis* ca = find_case(a, cb.case_id);
    if (!ca) {
      out.notes.push_back(fmt::format("case {} is only in {}", cb.case_id, run_b));
      continue;
    }
    for (const auto& eb : cb.envs)
      if (!find_environment(*ca, eb.env))
        out.notes.push_back(fmt::format("{} in {} is only in {}", cb.case_id, eb.env, run_b));
  }
  return out;
}

}  // namespace dlcbench
