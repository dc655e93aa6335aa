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

}  // namespace

std::string render_console(const Analysis& analysis) {
  std::string out;
  for (const auto& c : analysis.cases) {
    out += fmt::format("\n{}  ({}; statistics over runs, each run the mean of its measured batches)\n",
                       c.case_id, c.unit);
    out += fmt::format("  {:<10} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>7}  {}\n", "env", "runs", "batches",
                       "mean", "median", "stddev", "95% CI of mean", "CV", "data");
    for (const auto& e : c.envs) {
      std::string data = e.dataset.empty() ? "" : e.dataset;
      if (e.fingerprint) data += e.in_container ? ", in container" : ", not in container";
      if (e.failed_launches) data += fmt::format(", {} failed launches", e.failed_launches);
      out += fmt::format("  {:<10} {:>5} {:>8} {:>10} {:>10} {:>10} {:>22} {:>6.1f}%  {}\n", e.env, e.runs.n,
                         e.batch_seconds.size(), num(e.runs.mean), num(e.runs.median), num(e.runs.stddev),
                         ci(e.runs), std::isfinite(e.runs.cv) ? 100 * e.runs.cv : 0.0, data);
    }
    for (const auto& o : c.overheads) {
      if (!o.mismatches.empty()) {
        out += fmt::format("  {} vs {}: NOT COMPARED, the environments did not run like for like:\n", o.env,
                           analysis.baseline);
        out += describe_mismatches(o.mismatches, analysis.baseline, o.env);
        continue;
      }
      out += fmt::format("  {} vs {}: ratio {:.4f}, {}  [Fieller CI, Welch t-test]\n", o.env, analysis.baseline,
                         o.estimate.ratio, o.verdict);
    }
    for (const auto& e : c.envs)
      for (const auto& f : e.failures) out += fmt::format("  {} failed, {}\n", e.env, f);
  }
  for (const auto& n : analysis.notes) out += fmt::format("note: {}\n", n);
  return out;
}

}  // namespace dlcbench
