#include "report/console.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/backend_comparison.h"
#include "report/markdown.h"

namespace dlcbench {
namespace {

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

std::string ci(const Summary& s) {
  if (!std::isfinite(s.ci95_low)) return "n/a";
  return fmt::format("{:.5f} .. {:.5f}", s.ci95_low, s.ci95_high);
}

// A table in aligned columns (figures to the right), each line indented by two.
std::string aligned(const TextTable& t) {
  std::vector<std::size_t> width(t.header.size(), 0);
  for (std::size_t i = 0; i < t.header.size(); ++i) width[i] = t.header[i].size();
  for (const auto& r : t.rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i) {
      const bool right = i < t.numeric.size() && t.numeric[i];
      const bool last = i + 1 == cells.size();
      out += right ? fmt::format("  {:>{}}", cells[i], width[i])
                   : last ? fmt::format("  {}", cells[i]) : fmt::format("  {:<{}}", cells[i], width[i]);
    }
    return out + "\n";
  };
  std::string out = line(t.header);
  for (const auto& r : t.rows) out += line(r);
  return out;
}

// The comparisons against the baseline and the failed launches, under a
// case's table.
std::string render_comparisons(const CaseAnalysis& c, const std::string& baseline) {
  std::string out;
  for (const auto& o : c.overheads) {
    if (!o.compared) {
      out += fmt::format("  {} vs {}: NOT COMPARED, the environments did not run like for like:\n", o.env, baseline);
      out += describe_mismatches(o.mismatches, baseline, o.env);
      continue;
    }
    out += fmt::format("  {} vs {}: {}{} {:.4f}, {}  [Fieller CI, Welch t-test; Mann-Whitney p = {}]{}\n", o.env,
                       baseline, c.startup ? added_time_words(o, "start") + ", " : "", ratio_label(c),
                       o.estimate.ratio, o.verdict_text,
                       std::isfinite(o.rank_test.p_value) ? fmt::format("{:.2g}", o.rank_test.p_value) : "n/a",
                       o.mismatch_allowed ? "  MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
    if (!o.mismatches.empty()) out += describe_mismatches(o.mismatches, baseline, o.env);
  }
  for (const auto& e : c.envs)
    for (const auto& f : e.failures) out += fmt::format("  {} failed, {}\n", e.env, f);
  return out;
}

// A micro-benchmark in its figure (GFLOP/s, ms, ...), in the table the
// Markdown and HTML reports show: a rate's interval comes out swapped from
// the seconds it is computed on; a latency also over all its operations.
std::string render_micro_case(const CaseAnalysis& c, const std::string& baseline) {
  return fmt::format("\n{}  ({})\n", c.case_id, case_caption(c)) + aligned(detail_table(c)) +
         render_comparisons(c, baseline);
}

std::string render_case(const CaseAnalysis& c, const std::string& baseline) {
  if (c.micro) return render_micro_case(c, baseline);
  std::string out;
  out += fmt::format("\n{}  ({})\n", c.case_id, case_caption(c));
  std::size_t w = 10;  // the env column fits the longest label ("docker:cpus=1")
  for (const auto& e : c.envs) w = std::max(w, e.env.size());
  out += fmt::format("  {:<{}} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>7} {:>10}  {}\n", "env", w, "runs",
                     c.startup ? "starts" : "batches", "mean", "median", "stddev", "95% CI of mean", "CV",
                     "warm-up", "data");
  for (const auto& e : c.envs) {
    std::vector<std::string> notes;
    if (!e.dataset.empty()) notes.push_back(e.dataset);
    if (e.fingerprint) notes.push_back(e.in_container ? "in container" : "not in container");
    if (e.failed_launches)
      notes.push_back(fmt::format("{} failed launch{}", e.failed_launches, e.failed_launches == 1 ? "" : "es"));
    if (e.runs.n > 1 && !e.outliers_assessed)
      notes.push_back(fmt::format("outliers not assessed (fewer than {} runs)", kMinOutlierSample));
    if (!e.outlier_runs.empty()) {
      std::vector<std::string> values;
      for (auto i : e.outlier_runs) values.push_back(fmt::format("{:.5f}", e.run_values[i]));
      notes.push_back(fmt::format("outlier runs {} (kept)", fmt::join(values, " ")));
    }
    const std::string data = fmt::format("{}", fmt::join(notes, ", "));
    // One run has no spread: its CV is n/a, not 0.0%.
    const std::string cv = e.runs.n > 1 && std::isfinite(e.runs.cv) ? fmt::format("{:.1f}%", 100 * e.runs.cv) : "n/a";
    out += fmt::format("  {:<{}} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>7} {:>10}  {}\n", e.env, w, e.runs.n,
                       e.batch_seconds.size(), num(e.runs.mean), num(e.runs.median), num(e.runs.stddev), ci(e.runs),
                       cv, e.warmup.n ? num(e.warmup.mean) : "n/a", data);
  }
  return out + render_comparisons(c, baseline);
}

// Micro-benchmarks differ in unit from case to case, so their summary is the
// Markdown report's table: each cell carries its unit and interval, the
// overhead and verdict in columns of their own.
// The paper's layout: a row per case, a column per environment, each cell
// the mean and the overhead against the baseline ("*" where significant).
// Micro-benchmarks show their figure (GFLOP/s, ms, ...; the unit beside the
// case), while the percentage stays the change in time per operation.
std::string render_summary(const Analysis& analysis, CaseKind kind) {
  std::vector<std::string> envs;
  for (const auto& c : analysis.cases)
    if (kind_of(c) == kind)
      for (const auto& e : c.envs)
        if (std::find(envs.begin(), envs.end(), e.env) == envs.end()) envs.push_back(e.env);
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind) continue;
    std::vector<std::string> row{c.micro ? fmt::format("{} ({})", c.case_id, c.figure_unit) : c.case_id};
    for (const auto& name : envs) {
      std::string cell = "n/a";
      for (const auto& e : c.envs) {
        if (e.env != name || !e.runs.n) continue;
        const FigureSummary f = figure_summary(c, e.runs);
        cell = c.micro ? format_figure(f.mean, figure_decimals(f.mean)) : num(e.runs.mean);
      }
      for (const auto& o : c.overheads)
        if (o.env == name)
          cell += !o.compared ? " not compared"
                              : fmt::format(" {:+.1f}%{}", 100 * (o.estimate.ratio - 1),
                                            is_significant(o.verdict) ? "*" : "");
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
  const std::string what = kind == CaseKind::startup ? "s/start (mean of runs), and vs {} in percent"
                           : kind == CaseKind::micro
                               ? "micro-benchmarks in their units (mean of runs), and the change in time per "
                                 "operation vs {} in percent (+ is slower)"
                               : "s/batch (mean of runs), and vs {} in percent";
  std::string out = fmt::format("\nSummary: {}; * = significant (95% CI excludes 1, Welch p < 0.05)\n",
                                fmt::format(fmt::runtime(what), analysis.baseline));
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

// Each network trained by several back ends: the back ends' time on the
// baseline, how they compare with the fastest, and each container's
// overhead per back end.
std::string render_backends(const Analysis& analysis) {
  const auto groups = backend_groups(analysis);
  if (groups.empty()) return "";
  std::vector<std::string> envs;
  for (const auto& g : groups)
    for (const auto& r : g.rows)
      for (const auto& o : r.analysis->overheads)
        if (std::find(envs.begin(), envs.end(), o.env) == envs.end()) envs.push_back(o.env);
  TextTable table;
  table.header = {"network", "back end", fmt::format("s/batch on {}", analysis.baseline), "vs fastest"};
  table.numeric = {false, false, true, true};
  for (const auto& e : envs) table.header.push_back(e + " vs " + analysis.baseline);
  for (const auto& g : groups)
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
      const auto& r = g.rows[i];
      std::vector<std::string> row = {i == 0 ? g.network : "", r.analysis->spec.backend,
                                      r.baseline_seconds > 0 ? num(r.baseline_seconds) : "n/a",
                                      r.vs_fastest > 0 ? fmt::format("{:.2f}x", r.vs_fastest) : "n/a"};
      for (const auto& e : envs) {
        std::string cell = "n/a";
        for (const auto& o : r.analysis->overheads)
          if (o.env == e && o.compared)
            cell = fmt::format("{:+.1f}%{}", 100 * (o.estimate.ratio - 1),
                               is_significant(o.verdict) ? "*" : "");
        row.push_back(cell);
      }
      table.rows.push_back(std::move(row));
    }
  return "\nBack ends side by side (the same network trained by each; container overheads per back end; * = "
         "significant)\n" +
         aligned(table);
}

}  // namespace

std::string render_console(const Analysis& analysis) {
  std::string out;
  for (CaseKind kind : kCaseKinds) {
    if (kind == CaseKind::micro && has_cases(analysis, kind))
      out += "\nMicro-benchmarks (each in its own figure; statistics and overheads over seconds per operation)\n";
    if (kind == CaseKind::startup && has_cases(analysis, kind))
      out += "\nContainer start-up (apart from training: a static program that exits at once)\n";
    for (const auto& c : analysis.cases)
      if (kind_of(c) == kind) out += render_case(c, analysis.baseline);
  }
  for (CaseKind kind : kCaseKinds) out += render_summary(analysis, kind);
  out += render_backends(analysis);
  for (const auto& n : analysis.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace dlcbench
