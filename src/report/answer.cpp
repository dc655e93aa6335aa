#include "report/answer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/ablation_shares.h"
#include "core/words.h"
#include "report/figures.h"

namespace dlcbench {
namespace {

std::string unit_words(const CaseAnalysis& c) {
  if (c.startup) return "ms per start, lower is better";
  if (c.serves()) return "p99 latency in ms per run, lower is better";
  const FigureTerms terms = figure_terms(c);
  return fmt::format("{}, {} is better", terms.unit, c.figure_is_rate ? "higher" : "lower");
}

// The header of the figure's column: "s/batch", "ms/start", "GFLOP/s".
std::string figure_header(const CaseAnalysis& c) { return c.startup ? "ms/start" : figure_terms(c).unit; }

// A run's mean in the case's unit: milliseconds for a start, the figure of a
// micro-benchmark or of a command's metric, seconds otherwise.
double shown_figure(const CaseAnalysis& c, double seconds) {
  if (c.startup) return 1e3 * seconds;
  if (c.micro) return figure_of(c, seconds);
  if (c.command && !c.figure_unit.empty()) return c.figure(seconds);
  return seconds;
}

std::vector<Cell> answer_cells(const Analysis& a, const CaseAnalysis& c, const EnvironmentStats& e) {
  if (e.env == a.baseline) return {"baseline", ""};
  const Overhead* o = c.overhead_of(e.env);
  if (!o) {
    if (e.failed_launches)
      return {"n/a", "no data: " + counted(static_cast<std::size_t>(e.failed_launches), "failed launch",
                                           "failed launches")};
    return {"n/a", "no data"};
  }
  if (!o->compared) return {"n/a", {"NOT COMPARED: not like for like", CellStyle::not_compared}};
  const CellStyle style = o->mismatch_allowed ? CellStyle::mismatch_allowed : CellStyle::plain;
  return {{headline_short_words(*o), style}, {short_verdict_words(*o, ComparisonWording::overhead), style}};
}

AnswerMark mark_of(const Overhead& o) {
  AnswerMark m;
  m.env = o.env;
  m.significant = is_significant(o.verdict);
  if (o.headline.form == Headline::Form::time_added) {
    const double scale = o.headline.terms.added_scale;  // in the unit the words use (ms, ns)
    m.value = scale * o.added.difference;
    m.low = scale * o.added.ci95_low;
    m.high = scale * o.added.ci95_high;
  } else {
    m.value = 100 * o.headline.change();
    m.low = 100 * o.headline.change_low();
    m.high = 100 * o.headline.change_high();
  }
  return m;
}

// "runsc: its runtime's helper processes' CPU is +60.4 of +113.2 ms per
// batch (53%); likely cause: isolation/seccomp", from the largest claimed
// cause and the likeliest difference; "" where there is nothing to say.
std::string why_line(const CaseAnalysis& c, const Overhead& o, const std::string& baseline) {
  if (!o.compared)
    for (const auto& m : o.mismatches)
      if (stops_comparison(m))
        return fmt::format("{} is not compared: {}: {} has {}, {} has {}; fix: {}", o.env, m.field, baseline,
                           m.baseline_value, o.env, m.other_value, m.fix);
  if (!is_significant(o.verdict) || !o.compared) return "";
  const std::string& per = o.headline.terms.per;
  // The system calls' prediction, where the run measured it, is the why.
  for (const auto& p : c.predictions) {
    if (p.env != o.env) continue;
    std::vector<std::string> top;
    for (std::size_t i = 0; i < p.terms.size() && top.size() < 2; ++i)
      if (p.terms[i].added_seconds > 0)
        top.push_back(fmt::format("{} {:+.1f} ms", p.terms[i].kind, 1e3 * p.wall_seconds(p.terms[i])));
    // Where the sandbox's helpers did the calls' extra work, the worker's
    // own threads' extra CPU is the measured part the calls leave.
    std::string rest;
    if (p.disagrees()) {
      rest = "; the rest is in no call they count";
      if (p.helpers_at_work() && p.worker_cpu && p.worker_cpu->ci95_low > 0)
        rest += fmt::format(" (the worker's own threads took {:+.1f} ms more CPU)", 1e3 * p.worker_cpu->difference);
    }
    return fmt::format("{}: its system calls predict {:+.1f} of {:+.1f} ms per {} ({:.0f}%){}{}", o.env, 1e3 * p.seconds,
                       1e3 * p.measured_seconds, c.sample_noun_one(), 100 * p.share(),
                       top.empty() ? "" : fmt::format(": {}", fmt::join(top, ", ")), rest);
  }
  const Explanation* e = c.explanation_of(o.env);
  if (!e) return "";
  std::string line;
  if (e->status == ExplanationStatus::unexplained)
    line = fmt::format("{}: nothing the counters measured accounts for its {:+.1f} ms per {}", o.env,
                       e->extra_ms.difference, per);
  if (e->status == ExplanationStatus::explained) {
    const CauseShare* top = nullptr;
    for (const auto& cause : e->causes)
      if (cause.claimed && (!top || cause.ms.difference > top->ms.difference)) top = &cause;
    if (top)
      line = fmt::format("{}: {} is {:+.1f} of {:+.1f} ms per {} ({:.0f}%)", o.env, cause_name(top->cause),
                         top->ms.difference, e->extra_ms.difference, per, 100 * top->share);
  }
  if (line.empty()) return "";
  if (const auto causes = c.likely_causes.find(o.env); causes != c.likely_causes.end())
    for (const auto& likely : causes->second)
      if (likely.fits) return fmt::format("{}; likely cause: {}", line, likely.mismatch.field);
  return line;
}

// serve: the tail against the median, the finding a mean would hide: "the
// median does not change (+0.8%, 95% CI ...), p99 is 2.10x (95% CI 1.85x ..
// 2.43x)"; "" where the quantiles were not compared.
std::string latency_line(const CaseAnalysis& c, const std::string& env) {
  const auto found = c.latency.find(env);
  if (found == c.latency.end()) return "";
  const Overhead* median = nullptr;
  const Overhead* p99 = nullptr;
  for (const auto& q : found->second) {
    if (q.quantile == std::string("p50")) median = &q.comparison;
    if (q.quantile == std::string("p99")) p99 = &q.comparison;
  }
  if (!median || !p99 || !median->compared || !p99->compared) return "";
  auto ratio = [](const Overhead& o) {
    const Headline& h = o.headline;
    return h.bounded() ? fmt::format("{:.2f}x (95% CI {:.2f} .. {:.2f})", h.time_ratio, h.time_low, h.time_high)
                       : fmt::format("{:.2f}x (no 95% CI)", h.time_ratio);
  };
  // A server under a CPU quota: how often its cgroup was throttled, the
  // cause of a tail that the median does not show (the counters' own
  // explanation speaks only for a significant overhead).
  std::string throttled;
  if (const Explanation* e = c.explanation_of(env))
    for (const auto& cc : e->counters)
      if (cc.counter == Counter::throttled_percent && cc.runs > 0 && cc.unavailable.empty() && cc.mean > 0)
        throttled = fmt::format("; its CPU quota throttled it in {:.1f}% of the periods", cc.mean);
  if (is_significant(median->verdict))
    return fmt::format("{}: the median is {}, p99 is {}{}", env, ratio(*median), ratio(*p99), throttled);
  return fmt::format("{}: the median does not change, {}; p99 is {}{}", env, headline_short_words(*median),
                     ratio(*p99), throttled);
}

AnswerCase answer_case(const Analysis& a, const CaseAnalysis& c, std::vector<std::string>& allowed) {
  AnswerCase ac;
  ac.title = c.case_id;
  ac.unit = unit_words(c);
  ac.table.header = {"environment", figure_header(c), "overhead (95% CI)", "verdict"};
  ac.table.numeric = {false, true, false, false};
  if (!c.overheads.empty() && c.overheads.front().headline.form == Headline::Form::time_added) {
    ac.form = Headline::Form::time_added;
    ac.added_unit = c.overheads.front().headline.terms.added_unit;
    ac.added_per = c.overheads.front().headline.terms.added_per();
    ac.table.header[2] = fmt::format("added per {} (95% CI)", ac.added_per);
  }
  for (const auto& e : c.envs) {
    const Overhead* o = c.overhead_of(e.env);
    const bool flagged = o && o->mismatch_allowed;
    if (flagged && std::find(allowed.begin(), allowed.end(), e.env) == allowed.end()) allowed.push_back(e.env);
    const double figure = shown_figure(c, e.runs.mean);
    std::vector<Cell> row{e.env + (flagged ? "!" : ""),
                          e.runs.n ? format_figure(figure, figure_decimals(figure)) : "n/a"};
    for (auto& cell : answer_cells(a, c, e)) row.push_back(std::move(cell));
    ac.table.rows.push_back(std::move(row));
    if (o && o->compared) ac.marks.push_back(mark_of(*o));
    if (std::string latency = latency_line(c, e.env); !latency.empty()) ac.why.push_back(std::move(latency));
    if (o)
      if (std::string why = why_line(c, *o, a.baseline); !why.empty()) ac.why.push_back(std::move(why));
  }
  for (const auto& e : c.envs)
    if (!e.failures.empty())
      ac.failures.push_back(fmt::format("{}: {}; the last, {}", e.env,
                                        counted(e.failures.size(), "failed launch", "failed launches"),
                                        e.failures.back()));
  if (c.ablation) ac.ablation = ablation_outcome_words(*c.ablation);
  return ac;
}

// The isolation differences (possible causes) that every compared
// environment shows against the baseline, in the order first seen.
std::vector<std::string> shared_isolation_differences(const Analysis& a) {
  std::vector<std::string> order;
  std::map<std::string, std::set<std::string>> envs_of;
  std::set<std::string> compared;
  for (const auto& c : a.cases)
    for (const auto& o : c.overheads) {
      if (!o.compared) continue;
      compared.insert(o.env);
      for (const auto& m : o.mismatches) {
        if (!m.possible_cause) continue;
        if (!envs_of.count(m.field)) order.push_back(m.field);
        envs_of[m.field].insert(o.env);
      }
    }
  std::vector<std::string> shared;
  if (compared.size() < 2) return shared;  // with one container, its own comparison says it
  for (const auto& field : order)
    if (envs_of[field] == compared) shared.push_back(field);
  return shared;
}

std::vector<std::string> disturbed_words(const Analysis& a) {
  struct Count {
    std::size_t disturbed = 0, assessed = 0;
    bool kept = false;  // too few undisturbed runs: kept in the statistics
  };
  std::map<std::string, Count> by_env;
  std::vector<std::string> order;
  for (const auto& c : a.cases)
    for (const auto& e : c.envs) {
      if (e.disturbed_runs.empty()) continue;
      if (!by_env.count(e.env)) order.push_back(e.env);
      Count& count = by_env[e.env];
      count.disturbed += e.disturbed_runs.size();
      count.assessed += e.runs_assessed;
      count.kept = count.kept || e.disturbed_kept;
    }
  std::vector<std::string> words;
  for (const auto& env : order)
    words.push_back(fmt::format("{} {} of {}{}", env, by_env[env].disturbed, by_env[env].assessed,
                                by_env[env].kept ? " KEPT (too few undisturbed)" : " set aside"));
  return words;
}

}  // namespace

std::string short_label(const std::string& label, std::size_t width) {
  if (label.size() <= width || width < 5) return label;
  const std::size_t head = (width - 1) / 2, tail = width - 1 - head;
  return label.substr(0, head) + "~" + label.substr(label.size() - tail);
}

Answer build_answer(const Analysis& analysis) {
  Answer answer;
  answer.baseline = analysis.baseline;
  for (CaseKind kind : kCaseKinds)
    for (const auto& c : analysis.cases)
      if (kind_of(c) == kind) answer.cases.push_back(answer_case(analysis, c, answer.mismatch_allowed));
  answer.shared_differences = shared_isolation_differences(analysis);
  answer.disturbed = disturbed_words(analysis);
  answer.noise_floor = noise_floor_report(analysis);
  answer.notes = analysis.notes;
  return answer;
}

}  // namespace dlcbench
