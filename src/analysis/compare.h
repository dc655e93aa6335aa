// Two result folders side by side (before and after a driver upgrade, two
// machines, two images): for every case and environment present in both,
// B's run values against A's, with the same overhead statistics as a run.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

struct RunComparison {
  std::string case_id;
  std::string env;
  std::string unit;      // of the figure: "s/batch", "events/s", "GFLOP/s"
  double a_figure = 0, b_figure = 0;  // the mean run's figure in that unit (a rate from its seconds per unit)
  EnvironmentStats a, b;
  Overhead change;                       // b relative to a ("env" is the environment)
  std::vector<Mismatch> differences;     // fingerprint fields that differ between the two runs
};

struct Comparison {
  std::string run_a, run_b;
  std::vector<RunComparison> rows;
  std::vector<std::string> notes;  // cases or environments in only one run, ...
};

Comparison compare_runs(const Analysis& a, const Analysis& b, const std::string& run_a, const std::string& run_b);

}  // namespace dlcbench
