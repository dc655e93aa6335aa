// Overhead over time (issue 40): per machine, case and environment, the
// stored runs' headline overheads in order, and between each two
// neighbours a test of the difference of their overheads, with its own
// interval, never "the intervals do not overlap".
//
// Each entry's overhead is the log of its headline time ratio with the
// standard error its 95% interval gives. Runs on a shared machine drift
// beyond what one run's interval says, so the difference's variance also
// has twice a between-run variance (tau^2), estimated robustly from the
// series' own neighbouring differences (the median, so that one change does
// not hide itself), or from every series together where one is too short;
// being estimated from few, it is tested with Student's t on
// Welch-Satterthwaite's degrees of freedom (the runs' own intervals count as
// known).
// The tests of the whole history (cases x environments x entries) are held
// to a family-wise false-alarm rate of alpha by Holm's method: flaky alarms,
// the complaint about fixed bands, are what it rules out.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/overhead.h"

namespace dlcbench {

// One stored run's comparison of an environment with its baseline.
struct HistoryEntry {
  std::string run_id, ended_at;
  Headline headline;  // time ratio and its 95% CI
  std::map<std::string, std::string> facts;  // runtime version, image, options, kernel, ...
  bool calibration = false;  // an A/A run
  double log_ratio() const;
  double standard_error() const;  // NaN without an interval
};

struct HistorySeries {
  std::string machine, case_id, env, baseline;
  std::vector<HistoryEntry> entries;  // oldest first
};

struct FactChange {
  std::string name, before, after;  // "" where a side does not know it
};

// Between entry `to - 1` and entry `to`.
struct HistoryStep {
  std::size_t to = 0;
  bool tested = false;  // both entries have an interval
  double ratio = 1;     // of the two time ratios: later / earlier
  double ratio_low = 0, ratio_high = 0;  // its 95% interval, drift included
  double p_value = 1;
  bool flagged = false;     // a change, after the false-alarm control
  bool transient = false;   // flagged, and the next step goes back: one run off, not a lasting change
  std::vector<FactChange> changed;  // what the stored facts say changed with it
};

struct SeriesHistory {
  HistorySeries series;
  double drift = 0;          // tau: the between-run standard deviation of the log ratio
  bool drift_pooled = false;  // from every series together (this one is too short)
  std::vector<HistoryStep> steps;  // one per entry after the first
};

struct History {
  std::vector<SeriesHistory> series;
  double alpha = 0.05;  // family-wise, over every step tested
  std::size_t tests = 0;
  std::size_t flagged = 0;  // change points (transient ones apart)
  std::size_t transients = 0;  // runs off that the next run undid
};

// The facts that differ between two entries, by name.
std::vector<FactChange> changed_facts(const std::map<std::string, std::string>& before,
                                      const std::map<std::string, std::string>& after);

History analyze_history(std::vector<HistorySeries> series, double alpha = 0.05);

}  // namespace dlcbench
