#include "report/gate_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/svg.h"

namespace dlcbench {
namespace {

std::string percent(double ratio) { return fmt::format("{:+.1f}%", 100 * (ratio - 1)); }

// "+0.4% (95% CI -1.2 .. +2.0)", of the slowdown judged.
std::string judged(const GateCheck& c) {
  const std::string what = c.reference ? fmt::format("overhead x{:.3f} of run {}'s", c.ratio, c.reference->run_id)
                                       : fmt::format("overhead {}", percent(c.ratio));
  if (!std::isfinite(c.low) || !std::isfinite(c.high)) return what + " (no interval)";
  return c.reference ? fmt::format("{} (95% CI {:.3f} .. {:.3f})", what, c.low, c.high)
                     : fmt::format("{} (95% CI {} .. {})", what, percent(c.low), percent(c.high));
}

std::string check_line(const GateCheck& c, double margin) {
  const std::string head = fmt::format("{}  {} vs {}: {}", c.case_id, c.env, c.baseline, judged(c));
  const std::string bound = fmt::format("{:+.1f}%", 100 * margin);
  switch (c.outcome) {
    case GateOutcome::pass: return fmt::format("PASS         {}, within {}", head, bound);
    case GateOutcome::fail: return fmt::format("FAIL         {}, beyond {}", head, bound);
    case GateOutcome::cannot_tell:
      return fmt::format("CANNOT TELL  {} against {}: {}{}", head, bound, c.why,
                         c.rounds_needed > 0 ? fmt::format(" (run again with --runs {})", c.rounds_needed) : "");
    case GateOutcome::not_compared: return fmt::format("NOT COMPARED {}: {}", head, c.why);
  }
  return head;
}

std::string xml(const std::string& text) { return html_escape(text); }

}  // namespace

std::vector<std::string> gate_lines(const GateResult& g) {
  std::vector<std::string> out;
  for (const auto& c : g.checks) out.push_back(check_line(c, g.max_overhead));
  for (const auto& m : g.missing) out.push_back("MISSING      " + m);
  if (g.no_comparison) out.push_back("NO COMPARISON: the run compared no environment with its baseline");
  std::size_t pass = 0, fail = 0, unsure = 0, uncompared = 0;
  for (const auto& c : g.checks) {
    pass += c.outcome == GateOutcome::pass;
    fail += c.outcome == GateOutcome::fail;
    unsure += c.outcome == GateOutcome::cannot_tell;
    uncompared += c.outcome == GateOutcome::not_compared;
  }
  out.push_back(fmt::format("gate at {:+.1f}%: {} passed, {} failed, {} cannot tell, {} not compared{}",
                            100 * g.max_overhead, pass, fail, unsure, uncompared,
                            g.missing.empty() ? "" : fmt::format(", {} missing", g.missing.size())));
  return out;
}

std::string gate_junit(const GateResult& g, const std::string& run) {
  std::size_t failures = 0, errors = 0;
  std::string cases;
  for (const auto& c : g.checks) {
    const std::string line = check_line(c, g.max_overhead);
    cases += fmt::format("    <testcase classname=\"{}\" name=\"{} vs {}\">", xml(c.case_id), xml(c.env), xml(c.baseline));
    switch (c.outcome) {
      case GateOutcome::pass: break;
      case GateOutcome::fail:
        ++failures;
        cases += fmt::format("<failure type=\"slower\" message=\"{}\"/>", xml(line));
        break;
      case GateOutcome::cannot_tell:
        ++errors;
        cases += fmt::format("<error type=\"cannot-tell\" message=\"{}\"/>", xml(line));
        break;
      case GateOutcome::not_compared:
        ++errors;
        cases += fmt::format("<error type=\"not-comparable\" message=\"{}\"/>", xml(line));
        break;
    }
    cases += "</testcase>\n";
  }
  for (const auto& m : g.missing) {
    ++errors;
    cases += fmt::format("    <testcase classname=\"run\" name=\"environments\"><error type=\"missing\" "
                         "message=\"{}\"/></testcase>\n",
                         xml(m));
  }
  if (g.no_comparison) {
    ++errors;
    cases += "    <testcase classname=\"run\" name=\"comparisons\"><error type=\"no-comparison\" message=\"the run "
             "compared no environment with its baseline\"/></testcase>\n";
  }
  const std::size_t tests = g.checks.size() + g.missing.size() + (g.no_comparison ? 1 : 0);
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dlcbench gate\" tests=\"{0}\" "
                     "failures=\"{1}\" errors=\"{2}\">\n  <testsuite name=\"{3}\" tests=\"{0}\" failures=\"{1}\" "
                     "errors=\"{2}\">\n{4}  </testsuite>\n</testsuites>\n",
                     tests, failures, errors, xml(run), cases);
}

}  // namespace dlcbench
