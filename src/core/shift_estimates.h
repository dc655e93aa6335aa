// Robust estimates of how far one sample lies from another, with
// distribution-free (or trimmed) 95% intervals. The verdicts take them on
// log run values, so a shift is a log ratio: a straggler-ridden run moves
// them far less than it moves a mean, and their intervals need no normal
// runs (bench/estimators.cpp measured their coverage on real runs).
//
// An interval that the sample sizes cannot give (two runs a side leave the
// Mann-Whitney distribution no tail of 2.5%) is NaN at both ends.
#pragma once

#include <cstddef>
#include <span>

namespace dlcbench {

struct ShiftEstimate {
  double shift = 0;                 // subject - baseline
  double ci95_low = 0, ci95_high = 0;  // NaN: the samples cannot give one
  bool exact = false;               // the interval's ends come from the exact null distribution
};

// Hodges-Lehmann: the median of the m x n differences subject_i -
// baseline_j, with the interval of the Mann-Whitney test inverted (Bauer
// 1972): the k-th smallest and k-th largest differences, k the largest
// integer with P(U <= k - 1) <= 2.5% under no shift. Exact below 2,500 pairs
// (ties are taken as if broken at random), the normal approximation with a
// continuity correction above.
ShiftEstimate hodges_lehmann_shift(std::span<const double> subject, std::span<const double> baseline);

// The paired form, for per-round differences: the median of the Walsh
// averages (d_i + d_j) / 2, i <= j, with the Wilcoxon signed-rank interval
// (exact up to 200 differences).
ShiftEstimate hodges_lehmann_paired(std::span<const double> differences);

// Yuen's difference of trimmed means (the `trim` share cut from each end),
// with its Welch-type interval from the winsorized variances. Needs at
// least two values left after trimming on each side.
ShiftEstimate yuen_trimmed_difference(std::span<const double> subject, std::span<const double> baseline,
                                      double trim = 0.2);

}  // namespace dlcbench
