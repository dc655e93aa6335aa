#include "orchestrator/stopping_rule.h"

#include <cmath>

#include "analysis/disturbance.h"
#include "analysis/overhead.h"
#include "core/statistics.h"

namespace dlcbench {

const char* stop_reason_text(StopReason reason) {
  switch (reason) {
    case StopReason::not_stopped: return "not stopped";
    case StopReason::planned_rounds: return "the planned rounds (--runs) done";
    case StopReason::precision_reached: return "--precision reached";
    case StopReason::until_cv_reached: return "--until-cv reached";
    case StopReason::targets_reached: return "--precision and --until-cv reached";
    case StopReason::max_runs: return "--max-runs reached";
    case StopReason::max_time: return "--max-time reached";
  }
  return "?";
}

CountedRuns counted_runs(const CellRuns& cell, int planned_runs) {
  CountedRuns out{cell.run_values, cell.rounds};
  if (keep_disturbed_runs(cell.run_values.size(), cell.run_values.size() + cell.disturbed_values.size(),
                          planned_runs)) {
    out.values.insert(out.values.end(), cell.disturbed_values.begin(), cell.disturbed_values.end());
    out.rounds.insert(out.rounds.end(), cell.disturbed_rounds.begin(), cell.disturbed_rounds.end());
  }
  return out;
}

double counted_half_width(const CellRuns& cell, const CellRuns& base, int planned_runs) {
  const CountedRuns subject = counted_runs(cell, planned_runs), baseline = counted_runs(base, planned_runs);
  if (subject.values.empty() || baseline.values.empty()) return std::nan("");
  return robust_ratio({subject.values, subject.rounds}, {baseline.values, baseline.rounds}).half_width();
}

RoundDecision decide_after_round(const StoppingRule& rule, int rounds_done, double elapsed_seconds,
                                 double round_seconds, const std::vector<std::vector<CellRuns>>& cells) {
  RoundDecision d;
  bool precision_unmet = false;
  for (const auto& envs : cells) {
    const CellRuns* base = nullptr;
    for (const auto& c : envs)
      if (c.baseline && c.live) base = &c;
    for (const auto& c : envs) {
      if (!c.live) continue;
      // Every launch failed: more rounds do not make that a figure.
      if (c.run_values.empty() && c.disturbed_values.empty()) continue;
      // A replacement for each disturbed run, up to --runs (a failed launch
      // is not replaced: three in a row drop the environment instead).
      if (!c.disturbed_values.empty() && c.run_values.size() < static_cast<std::size_t>(rule.runs))
        ++d.short_of_runs;
      if (rule.until_cv > 0) {
        const CountedRuns counted = counted_runs(c, rule.runs);
        const double cv = counted.values.size() >= 2 ? summarize(counted.values).cv : NAN;
        if (!(cv <= rule.until_cv)) d.cv_unmet = true;
        if (std::isfinite(cv) && cv > d.highest_cv) d.highest_cv = cv;
      }
      const bool base_measured = base && !(base->run_values.empty() && base->disturbed_values.empty());
      if (rule.precision > 0 && base_measured && &c != base) {
        const double half_width = counted_half_width(c, *base, rule.runs);
        if (!(half_width <= rule.precision)) {
          precision_unmet = true;
          ++d.above_precision;
        }
        // The first without an interval, else the widest.
        const bool wider = std::isnan(half_width) ? !std::isnan(d.widest_half_width)
                                                  : !std::isnan(d.widest_half_width) && half_width > d.widest_half_width;
        if (wider) {
          d.widest_half_width = half_width;
          d.widest = c.case_id + " " + c.env;
        }
      }
    }
  }
  const bool wanted = d.short_of_runs > 0 || precision_unmet || d.cv_unmet;
  if (!wanted) {
    // Why, truly: a run without a target stops at its planned rounds.
    d.stop = rule.precision > 0 && rule.until_cv > 0 ? StopReason::targets_reached
             : rule.precision > 0                    ? StopReason::precision_reached
             : rule.until_cv > 0                     ? StopReason::until_cv_reached
                                                     : StopReason::planned_rounds;
  } else if (rounds_done >= rule.max_runs) {
    d.stop = StopReason::max_runs;
  } else if (rule.max_time_seconds > 0 && elapsed_seconds + round_seconds > rule.max_time_seconds) {
    d.stop = StopReason::max_time;
  } else {
    d.add_round = true;
  }
  return d;
}

}  // namespace dlcbench
