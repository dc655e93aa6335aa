// One environment against another: the ratio of their mean run values with
// its interval and tests, the milliseconds a sample adds, and the verdict,
// worded once here for every report (and for `compare`, between two runs).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "analysis/comparability.h"
#include "core/statistics.h"

namespace dlcbench {

// The judgement on one comparison; every report words it from this.
enum class Verdict {
  too_few_runs,            // fewer than two runs on a side: no interval
  slower,                  // significant: the interval excludes 1 and Welch's p < 0.05
  faster,
  no_measurable_overhead,  // not significant, and the whole interval lies within +-kEquivalenceMargin
  inconclusive,            // not significant, and the interval reaches beyond the margin (or is unbounded)
};
// "No measurable overhead" is claimed only for an interval inside +-5%:
// an interval of -32% .. +6173% excludes nothing and says so.
inline constexpr double kEquivalenceMargin = 0.05;

Verdict judge(const RatioEstimate& r);
inline bool is_significant(Verdict v) { return v == Verdict::slower || v == Verdict::faster; }

// Between two environments of a run ("overhead", "the baseline") or two
// runs (`dlcbench compare`: "difference", B relative to A).
enum class ComparisonWording { overhead, difference };

struct Overhead {
  std::string env;
  RatioEstimate estimate;  // env mean / baseline mean, Fieller CI, Welch's t-test
  // env mean - baseline mean with Welch's interval: start-up reads best as
  // the milliseconds each start adds.
  DifferenceEstimate added;
  MannWhitneyTest rank_test;  // of the run values: robust to outliers and skew
  Verdict verdict = Verdict::too_few_runs;
  // Where the interval is missing or unbounded: the runs that would bound it.
  std::size_t runs_needed = 0;
  std::string verdict_text;  // in words, with the interval and p (verdict_words)
  std::vector<Mismatch> mismatches;  // differences in the fingerprints, asked for or not
  bool compared = true;              // false: a mismatch nobody asked for stopped it
  bool mismatch_allowed = false;     // compared despite such a mismatch (--allow-mismatch)
};

// The comparison of `subject` with `baseline` run values: the ratio, its
// interval and tests, the verdict and its words.
Overhead compare_run_values(const std::string& env, std::span<const double> subject, std::span<const double> baseline,
                            ComparisonWording wording);

// "no measurable overhead (95% CI -1.2% .. +0.8%, within +-5%, p = 0.6)",
// "slower by 3.1% (95% CI +1.2% .. +5.0%, p = 0.003)", "inconclusive: ...".
std::string verdict_words(const Overhead& o, ComparisonWording wording);
// The verdict alone, for a table's verdict column: "slower by 3.1%",
// "no measurable overhead", "inconclusive", "too few runs".
std::string short_verdict_words(const Overhead& o, ComparisonWording wording);
// The time each sample adds against the baseline, in milliseconds:
// "+283.1 ms per start (95% CI +270.4 .. +295.8 ms)".
std::string added_time_words(const Overhead& o, const std::string& per);
// "95% CI -1.2% .. +0.8%", "95% CI unbounded", "95% CI includes ratios <= 0
// .. +203.4%", "no 95% CI": never a bound no ratio of times can have.
std::string ratio_interval_words(const RatioEstimate& r);

}  // namespace dlcbench
