#include "orchestrator/stopping_rule.h"

#include <cmath>

#include "analysis/overhead.h"
#include "core/statistics.h"

namespace dlcbench {

const char* stop_reason_text(StopReason reason) {
  switch (reason) {
    case StopReason::not_stopped: return "not stopped";
    case StopReason::nothing_to_add: return "every target met";
    case StopReason::max_runs: return "--max-runs reached";
    case StopReason::max_time: return "--max-time reached";
  }
  return "?";
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
      if (c.run_values.empty() && c.disturbed == 0) continue;
      // A replacement for each disturbed run, up to --runs (a failed launch
      // is not replaced: three in a row drop the environment instead).
      if (c.disturbed > 0 && c.run_values.size() < static_cast<std::size_t>(rule.runs)) ++d.short_of_runs;
      if (rule.until_cv > 0) {
        const double cv = c.run_values.size() >= 2 ? summarize(c.run_values).cv : NAN;
        if (!(cv <= rule.until_cv)) d.cv_unmet = true;
        if (std::isfinite(cv) && cv > d.highest_cv) d.highest_cv = cv;
      }
      if (rule.precision > 0 && base && &c != base && !base->run_values.empty()) {
        const double half_width = robust_ratio({c.run_values, c.rounds}, {base->run_values, base->rounds}).half_width();
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
    d.stop = StopReason::nothing_to_add;
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
