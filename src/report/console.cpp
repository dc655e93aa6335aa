#include "report/console.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dlcbench {
namespace {

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

std::string ci(const Summary& s) {
  if (!std::isfinite(s.ci95_low)) return "n/a";
  return fmt::format("{:.5f} .. {:.5f}", s.ci95_low, s.ci95_high);
}

std::string render_case(const CaseAnalysis& c, const std::string& baseline) {
  std::string out;
  out += fmt::format("\n{}  ({}; statistics over runs, each run the {} of its measured {})\n", c.case_id, c.unit,
                     c.run_statistic, c.startup ? "starts" : "batches");
  std::size_t w = 10;  // the env column fits the longest label ("docker:cpus=1")
  for (const auto& e : c.envs) w = std::max(w, e.env.size());
  out += fmt::format("  {:<{}} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>7}  {}\n", "env", w, "runs",
                     c.startup ? "starts" : "batches", "mean", "median", "stddev", "95% CI of mean", "CV", "data");
  for (const auto& e : c.envs) {
    std::vector<std::string> notes;
    if (!e.dataset.empty()) notes.push_back(e.dataset);
    if (e.fingerprint) notes.push_back(e.in_container ? "in container" : "not in container");
    if (e.failed_launches) notes.push_back(fmt::format("{} failed launches", e.failed_launches));
    if (!e.outlier_runs.empty()) {
      std::vector<std::string> values;
      for (auto i : e.outlier_runs) values.push_back(fmt::format("{:.5f}", e.run_values[i]));
      notes.push_back(fmt::format("outlier runs {} (kept)", fmt::join(values, " ")));
    }
    const std::string data = fmt::format("{}", fmt::join(notes, ", "));
    out += fmt::format("  {:<{}} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>6.1f}%  {}\n", e.env, w, e.runs.n,
                       e.batch_seconds.size(), num(e.runs.mean), num(e.runs.median), num(e.runs.stddev), ci(e.runs),
                       std::isfinite(e.runs.cv) ? 100 * e.runs.cv : 0.0, data);
  }
  for (const auto& o : c.overheads) {
    if (!o.compared) {
      out += fmt::format("  {} vs {}: NOT COMPARED, the environments did not run like for like:\n", o.env, baseline);
      out += describe_mismatches(o.mismatches, baseline, o.env);
      continue;
    }
    out += fmt::format("  {} vs {}: ratio {:.4f}, {}  [Fieller CI, Welch t-test; Mann-Whitney p = {}]{}\n", o.env,
                       baseline, o.estimate.ratio, o.verdict,
                       std::isfinite(o.rank_test.p_value) ? fmt::format("{:.2g}", o.rank_test.p_value) : "n/a",
                       o.mismatch_allowed ? "  MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
    if (!o.mismatches.empty()) out += describe_mismatches(o.mismatches, baseline, o.env);
  }
  for (const auto& e : c.envs)
    for (const auto& f : e.failures) out += fmt::format("  {} failed, {}\n", e.env, f);
  return out;
}

// The paper's layout: a row per case, a column per environment, each cell
// the mean and the overhead against the baseline ("*" where significant).
std::string render_summary(const Analysis& analysis, bool startup) {
  std::vector<std::string> envs;
  for (const auto& c : analysis.cases)
    if (c.startup == startup)
      for (const auto& e : c.envs)
        if (std::find(envs.begin(), envs.end(), e.env) == envs.end()) envs.push_back(e.env);
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : analysis.cases) {
    if (c.startup != startup) continue;
    std::vector<std::string> row{c.case_id};
    for (const auto& name : envs) {
      std::string cell = "n/a";
      for (const auto& e : c.envs)
        if (e.env == name && e.runs.n) cell = num(e.runs.mean);
      for (const auto& o : c.overheads)
        if (o.env == name)
          cell += !o.compared ? " not compared"
                              : fmt::format(" {:+.1f}%{}", 100 * (o.estimate.ratio - 1),
                                            o.verdict.rfind("slower", 0) == 0 || o.verdict.rfind("faster", 0) == 0
                                                ? "*"
                                                : "");
      row.push_back(cell);
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return "";
  std::vector<std::size_t> width(envs.size() + 1, 4);
  width[0] = 4;
  for (std::size_t i = 0; i < envs.size(); ++i) width[i + 1] = envs[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out = fmt::format("\nSummary: {} (mean of runs), and vs {} in percent; * = significant (95% CI "
                                "excludes 1, Welch p < 0.05)\n",
                                startup ? "s/start" : "s/batch", analysis.baseline);
  out += fmt::format("  {:<{}}", "case", width[0]);
  for (std::size_t i = 0; i < envs.size(); ++i) out += fmt::format("  {:<{}}", envs[i], width[i + 1]);
  out += "\n";
  for (const auto& r : rows) {
    out += fmt::format("  {:<{}}", r[0], width[0]);
    for (std::size_t i = 1; i < r.size(); ++i) out += fmt::format("  {:<{}}", r[i], width[i]);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_console(const Analysis& analysis) {
  std::string out;
  for (const auto& c : analysis.cases)
    if (!c.startup) out += render_case(c, analysis.baseline);
  bool heading = false;
  for (const auto& c : analysis.cases) {
    if (!c.startup) continue;
    if (!heading) out += "\nContainer start-up (apart from training: a static program that exits at once)\n";
    heading = true;
    out += render_case(c, analysis.baseline);
  }
  out += render_summary(analysis, false);
  out += render_summary(analysis, true);
  for (const auto& n : analysis.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace dlcbench
