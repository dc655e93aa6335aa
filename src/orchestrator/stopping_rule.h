// When to stop adding rounds after --runs: the scheduler asks after every
// round from the last planned one on. A round is added while a case x
// environment has fewer undisturbed runs than --runs (a replacement for
// each disturbed one, analysis/disturbance.h), while a comparison's
// interval is wider than --precision, or while a CV is above --until-cv;
// never past --max-runs rounds, nor when the next round would end after
// --max-time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dlcbench {

struct StoppingRule {
  int runs = 20;           // planned rounds: each cell's undisturbed runs are replaced up to this
  int max_runs = 0;        // most rounds in all; at or below runs: none is added
  double until_cv = 0;     // 0: off
  double precision = 0;    // largest half-width of a comparison's robust interval (analysis/overhead.h), as a share; 0: off
  double max_time_seconds = 0;  // 0: no limit
};

// One case x environment after a round: its successful runs, undisturbed
// and disturbed (analysis/disturbance.h).
struct CellRuns {
  std::string case_id, env;
  bool baseline = false;  // the plan's baseline in this case
  bool live = true;       // still measured: not dropped, not unavailable
  std::vector<double> run_values;  // undisturbed runs
  std::vector<int> rounds;         // of each, which pairs it with the baseline's
  std::vector<double> disturbed_values;  // set aside unless keep_disturbed_runs()
  std::vector<int> disturbed_rounds;
};

// The runs the analysis will count for a cell with `planned_runs` planned:
// the undisturbed ones, or all of them when the disturbed are kept, so that
// the half-width the stopping rule and the progress line read is the
// report's.
struct CountedRuns {
  std::vector<double> values;
  std::vector<int> rounds;
};
CountedRuns counted_runs(const CellRuns& cell, int planned_runs);

// The robust interval's half-width of `cell` against `base`, each with the
// runs the analysis will count; NaN while either has none or too few.
double counted_half_width(const CellRuns& cell, const CellRuns& base, int planned_runs);

enum class StopReason {
  not_stopped,        // a round is added
  planned_rounds,     // no target was set: --runs rounds, each disturbed run replaced
  precision_reached,  // --precision met (and no disturbed run short of a replacement)
  until_cv_reached,   // --until-cv met (likewise)
  targets_reached,    // --precision and --until-cv both met
  max_runs,           // --max-runs reached with a target unmet
  max_time,           // the next round would end after --max-time
};
const char* stop_reason_text(StopReason reason);  // "the planned rounds done", "--max-runs reached", ...

struct RoundDecision {
  bool add_round = false;
  StopReason stop = StopReason::not_stopped;
  std::size_t short_of_runs = 0;  // live cells with a disturbed run and fewer undisturbed runs than --runs
  // --precision: the widest robust half-width over comparisons (NaN where
  // one has no interval yet), which one, and how many are above the target.
  double widest_half_width = 0;
  std::string widest;  // "fcn5/torch/cpu/b64 docker"
  std::size_t above_precision = 0;
  double highest_cv = 0;
  bool cv_unmet = false;
};

// `cells` per case, each with its environments. `round_seconds` is the mean
// duration of a round so far, to keep the next one inside --max-time.
RoundDecision decide_after_round(const StoppingRule& rule, int rounds_done, double elapsed_seconds,
                                 double round_seconds, const std::vector<std::vector<CellRuns>>& cells);

}  // namespace dlcbench
