#include "report/console.h"

#include <cmath>

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
  out += fmt::format("  {:<10} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>7}  {}\n", "env", "runs",
                     c.startup ? "starts" : "batches", "mean", "median", "stddev", "95% CI of mean", "CV", "data");
  for (const auto& e : c.envs) {
    std::string data = e.dataset.empty() ? "" : e.dataset;
    if (e.fingerprint) data += e.in_container ? ", in container" : ", not in container";
    if (e.failed_launches) data += fmt::format(", {} failed launches", e.failed_launches);
    out += fmt::format("  {:<10} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>6.1f}%  {}\n", e.env, e.runs.n,
                       e.batch_seconds.size(), num(e.runs.mean), num(e.runs.median), num(e.runs.stddev), ci(e.runs),
                       std::isfinite(e.runs.cv) ? 100 * e.runs.cv : 0.0, data);
  }
  for (const auto& o : c.overheads) {
    if (!o.compared) {
      out += fmt::format("  {} vs {}: NOT COMPARED, the environments did not run like for like:\n", o.env, baseline);
      out += describe_mismatches(o.mismatches, baseline, o.env);
      continue;
    }
    out += fmt::format("  {} vs {}: ratio {:.4f}, {}  [Fieller CI, Welch t-test]{}\n", o.env, baseline,
                       o.estimate.ratio, o.verdict,
                       o.mismatch_allowed ? "  MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
    if (!o.mismatches.empty()) out += describe_mismatches(o.mismatches, baseline, o.env);
  }
  for (const auto& e : c.envs)
    for (const auto& f : e.failures) out += fmt::format("  {} failed, {}\n", e.env, f);
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
  for (const auto& n : analysis.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace dlcbench
