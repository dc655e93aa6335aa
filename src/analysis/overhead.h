// One environment against another: the ratio of their mean run values with
// its interval and tests, the milliseconds a sample adds, and the verdict,
// worded once here for every report (and for `compare`, between two runs).
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/comparability.h"
#include "core/statistics.h"
#include "model/equivalence_margin.h"

namespace dlcbench {

// The judgement on one comparison; every report words it from this. It is
// taken on the robust interval (below); the mean's is shown beside.
enum class Verdict {
  too_few_runs,  // no robust interval, and the means' does not show a difference either
  // The robust interval lies above 1; with too few rounds for it, the
  // means' interval (Fieller) and Welch's test both show the difference.
  slower,
  faster,        // ... below 1
  equivalent,    // neither, and both intervals (robust and mean) lie within +-margin
  inconclusive,  // neither: no measurable overhead, but the intervals reach beyond the margin
};
// "too few runs", "slower", "faster", "equivalent", "inconclusive": the JSON
// report's and the results store's name; and back (nullopt for other text).
const char* verdict_name(Verdict v);
std::optional<Verdict> verdict_from_name(std::string_view name);

// The verdict's estimate of the ratio subject / baseline. Within a run,
// where both environments ran in the same rounds, it is paired by round:
// the Hodges-Lehmann estimate of the per-round log ratios of run values
// (the median of their Walsh averages) with the exact Wilcoxon signed-rank
// interval. Between two runs (`dlcbench compare`), where rounds do not pair,
// the two-sample Hodges-Lehmann shift of the log run values with the
// Mann-Whitney interval. The estimand is the typical ratio of a round's two
// run values; each run value is the mean of the run's batches, so stalls
// count in full. Chosen in bench/estimators.cpp: on A/A data of real runs it
// covered at its level and was the narrowest (the per-run medians
// and quartiles were wider: batch times are bimodal within a run).
struct RobustRatio {
  double ratio = 0;
  double ci95_low = 0, ci95_high = 0;  // NaN: too few runs for an interval
  bool paired = false;                 // by round (else two independent samples)
  std::size_t pairs = 0;               // rounds with both sides, when paired
  bool exact = false;                  // the interval's ends from the exact null distribution
  bool bounded() const;
  // (high - low) / 2 as a share: what --precision stops on; NaN when unbounded.
  double half_width() const;
};

// Run values with the round each was measured in (empty rounds: no pairing).
struct RunFigures {
  std::span<const double> values;
  std::span<const int> rounds;
};
RobustRatio robust_ratio(RunFigures subject, RunFigures baseline);

// The verdict from the robust interval and the mean's: significance from
// the robust one alone; equivalence only when both lie within +-margin.
Verdict judge(const RobustRatio& robust, const RatioEstimate& mean, double margin);
inline bool is_significant(Verdict v) { return v == Verdict::slower || v == Verdict::faster; }

// Between two environments of a run ("overhead", "the baseline") or two
// runs (`dlcbench compare`: "difference", B relative to A).
enum class ComparisonWording { overhead, difference };

// What a comparison's figure is, for its words: a time per operation
// (s/batch, s/launch; above 1 is slower) or a rate (events/s, GFLOP/s),
// whose statistics stay over seconds per unit while its words speak of the
// rate, in the user's unit.
struct FigureTerms {
  bool rate = false;
  std::string unit;  // "s/batch", "events/s"; "" where the words need none
  // What one sample is: "batch", "start", "operation", "launch".
  std::string per = "operation";
  // Said as the time each sample adds ("+283.1 ms per start"), never as a
  // share: start-up, whose baseline is a fraction of a millisecond.
  bool time_added = false;
  // The unit the time a sample adds is said in: milliseconds, or the
  // figure's own where it is a time of its own (a system call's ns), with
  // seconds times added_scale giving it.
  std::string added_unit = "ms";
  double added_scale = 1e3;
  // What an added amount is per, where not per sample: "call" for
  // syscall's ns (an operation makes many calls). Empty: `per`.
  std::string added_per_what{};
  const std::string& added_per() const { return added_per_what.empty() ? per : added_per_what; }
  // "+283.1 ms", "+73810 ns": an amount of added time in that unit; its
  // number alone ("+283.1") for an interval's ends.
  std::string added(double seconds) const;
  std::string added_number(double seconds) const;
  // The same without its sign, for bounds ("no time added above 0.40 ms").
  std::string amount(double seconds) const;
};

// The one figure a comparison is reported by, chosen once here and written
// by every format (the verdict's words, the summaries, the HTML, the JSON,
// `compare`): the estimate the verdict rests on, with its interval, as the
// change of the case's own figure. The sign is the figure's: + is more of
// it (for a time, slower; for a rate, more per second).
struct Headline {
  // How every format says it: the change of the figure as a share ("+3.1%"),
  // or the time a sample adds ("+283.1 ms per start") where the baseline is
  // near zero and a share or ratio would be noise (start-up: "+47586%").
  enum class Form { change, time_added };
  Form form = Form::change;
  enum class Basis {
    robust,  // Hodges-Lehmann, the verdict's estimate
    means,   // the robust interval could not be bounded (too few rounds): the means' ratio and Fieller's interval
    none,    // no interval on either: the robust estimate alone
  };
  Basis basis = Basis::none;
  double time_ratio = 0;                       // subject / baseline, of seconds per operation
  double time_low = std::numeric_limits<double>::quiet_NaN();  // its 95% CI; NaN: none
  double time_high = std::numeric_limits<double>::quiet_NaN();
  FigureTerms terms;
  bool bounded() const;
  double change() const;       // of the figure, as a share: -0.45 = 45% fewer events/s
  double change_low() const;   // the interval's ends, in the same terms and order; NaN: none
  double change_high() const;
};
const char* headline_basis_name(Headline::Basis basis);  // "robust", "means", "none"
const char* headline_form_name(Headline::Form form);     // "change", "time_added"
// The names back (a stored run's); nullopt for any other text.
std::optional<Headline::Basis> headline_basis_from_name(std::string_view name);
std::optional<Headline::Form> headline_form_from_name(std::string_view name);
// A time figure whose ratio to the baseline is beyond this (either way) is
// said as the time added: at 10x a share reads "+900%", which says less than
// the milliseconds.
inline constexpr double kTimeAddedRatio = 10;
// A time ratio as the change of the figure: r - 1, or 1/r - 1 for a rate.
double figure_change(double time_ratio, const FigureTerms& terms);

// How often each side's runs were disturbed from outside
// (analysis/disturbance.h), out of those that could be judged.
struct DisturbanceRates {
  std::size_t disturbed = 0, assessed = 0;
  std::size_t baseline_disturbed = 0, baseline_assessed = 0;
  double p_value = 1;  // Fisher's exact test
  // Significantly more often than the baseline's (p < 0.05): a finding of
  // its own, since the environment's own processes are never counted as
  // disturbance (kernel threads working for it may be).
  bool higher = false;
};

struct Overhead {
  std::string env;
  FigureTerms terms;       // set before conclude(): the words' unit and direction
  Headline headline;       // conclude()'s: what every format reports it by
  RobustRatio robust;      // the verdict's: Hodges-Lehmann, paired by round where it can be
  RatioEstimate estimate;  // env mean / baseline mean, Fieller CI, Welch's t-test: shown beside it
  double margin = kDefaultEquivalenceMargin;  // of the equivalence verdict
  // The smallest overhead this comparison would find 4 times in 5 (80%
  // power, 5% level), from the wider of the two intervals (a verdict needs
  // both): 1.43 half-widths ((1.96 + 0.84) / 1.96). NaN without an interval.
  double min_detectable = 0;
  // Not significant: the largest overhead the intervals leave possible
  // (the higher of their upper ends, as a share); NaN when one is unbounded.
  double not_ruled_out = 0;
  // The mean's interval excludes 1 on a side the robust one does not: a few
  // runs far off the rest carry the difference.
  bool mean_disagrees = false;
  DisturbanceRates disturbance;
  // env mean - baseline mean with Welch's interval: start-up reads best as
  // the milliseconds each start adds.
  DifferenceEstimate added;
  double baseline_mean = 0;  // of the baseline's run values: the equivalence margin in time
  MannWhitneyTest rank_test;  // of the run values: robust to outliers and skew
  Verdict verdict = Verdict::too_few_runs;
  // Where the interval is missing or unbounded: the runs that would bound it.
  std::size_t runs_needed = 0;
  std::size_t runs_compared = 0;  // the fewer of the two sides' runs
  std::string verdict_text;  // in words, with the interval and p (verdict_words)
  std::vector<Mismatch> mismatches;  // differences in the fingerprints, asked for or not
  bool compared = true;              // false: a mismatch nobody asked for stopped it
  bool mismatch_allowed = false;     // compared despite such a mismatch (--allow-mismatch)
};

// From an overhead's two estimates and margin: its verdict, the effect it
// could detect, what it cannot rule out, and the words.
void conclude(Overhead& o, ComparisonWording wording);

// The comparison of `subject` with `baseline`: both estimates, their
// intervals and tests, the verdict and its words.
Overhead compare_figures(const std::string& env, RunFigures subject, RunFigures baseline, ComparisonWording wording,
                         double margin = kDefaultEquivalenceMargin, const FigureTerms& terms = {});

// "slower by 3.1% (95% CI +1.2% .. +5.0%; mean +3.4%, 95% CI ...)",
// "no overhead above 2% (equivalence at 95%: CI -0.8% .. +1.1%; mean ...)",
// "no measurable overhead, but this run cannot rule out up to +9.0% (...)".
std::string verdict_words(const Overhead& o, ComparisonWording wording);
// The verdict alone, for a table's verdict column: "slower by 3.1%",
// "no overhead above 2%", "not shown, up to +9.0%", "too few runs".
std::string short_verdict_words(const Overhead& o, ComparisonWording wording);
// The time each sample adds against the baseline, in milliseconds:
// "+283.1 ms per start (95% CI +270.4 .. +295.8 ms)".
std::string added_time_words(const Overhead& o, const std::string& per);
std::string added_time_words(const Overhead& o);  // per the figure's sample
// The headline in its form, short: "+3.1% (95% CI +1.2 .. +5.0)",
// "+283.1 ms (95% CI +270.4 .. +295.8)"; "+3.1% (no 95% CI)".
std::string headline_short_words(const Overhead& o);
// "95% CI -1.2% .. +0.8%", "95% CI unbounded", "95% CI includes ratios <= 0
// .. +203.4%", "no 95% CI": never a bound no ratio of times can have.
std::string ratio_interval_words(const RatioEstimate& r, const FigureTerms& terms = {});
// "95% CI +1.2% .. +5.0%", "no 95% CI (too few runs)".
std::string robust_interval_words(const RobustRatio& r, const FigureTerms& terms = {});
// "95% CI -48.0% .. -42.1%": the headline's interval as changes of the figure.
std::string headline_interval_words(const Headline& h);
// The headline a comparison is reported by: the robust estimate where its
// interval is bounded, else the means' where theirs is, else the robust
// estimate without an interval.
Headline headline_of(const RobustRatio& robust, const RatioEstimate& mean, const FigureTerms& terms);

}  // namespace dlcbench
