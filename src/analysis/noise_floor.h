// What `dlcbench calibrate` reports: the machine's noise floor, from an A/A
// run (the baseline measured twice, interleaved, as "host" and "host#2").
// The A/A comparison's robust interval is the smallest overhead this many
// rounds can resolve here; it narrows as one over the square root of the
// rounds, which gives the rounds a target precision needs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

struct RoundsForPrecision {
  double precision = 0;  // half-width asked for, as a share
  std::size_t rounds = 0;
};

struct NoiseFloor {
  std::string case_id;
  std::string baseline, env;    // "host" and its second copy, "host#2"
  std::size_t rounds = 0;       // paired rounds measured
  double run_cv = 0;            // the baseline's coefficient of variation over runs
  RobustRatio difference;       // host#2 / host: 1 within its interval, unless something drifted
  double half_width = 0;        // of that interval, as a share: the noise floor
  std::vector<RoundsForPrecision> rounds_for;  // 1%, 2%, 5% and the run's --precision
  std::size_t disturbed = 0, assessed = 0;     // runs disturbed from outside, of both copies
};

// Rounds for a half-width of `target` where `rounds` gave `half_width`:
// ceil(rounds (half_width / target)^2), at least 6 (the first rounds with a
// signed-rank interval); 0 when half_width is not a number.
std::size_t rounds_for_precision(std::size_t rounds, double half_width, double target);

// Per case, the baseline against each copy of itself ("<baseline>#N"); none
// when the run has no such copy. `precision` (0: none) is added to the
// targets.
std::vector<NoiseFloor> noise_floors(const Analysis& a, double precision);

// "fcn5/torch/cpu/b64: runs vary by 7.3% (CV); host#2 against host +0.4%
// (95% CI -3.1% .. +3.9%): with 20 rounds the noise floor is +-3.5%",
// then the rounds per precision and the disturbed runs.
std::vector<std::string> noise_floor_lines(const NoiseFloor& n);

}  // namespace dlcbench
