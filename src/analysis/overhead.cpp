#include "analysis/overhead.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/shift_estimates.h"
#include "core/words.h"

namespace dlcbench {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
// (z(0.975) + z(0.80)) / z(0.975): a half-width at 95% in minimum
// detectable effects at 80% power.
constexpr double kDetectablePerHalfWidth = (1.959964 + 0.841621) / 1.959964;

bool within(double low, double high, double margin) { return low >= 1 - margin && high <= 1 + margin; }

// Where a bounded interval lies against no change: +1 above 1, -1 below,
// 0 when it contains 1 or is not bounded.
int side_of_one(double low, double high) { return low > 1 ? 1 : high < 1 ? -1 : 0; }
int side_of_one(const RobustRatio& r) { return r.bounded() ? side_of_one(r.ci95_low, r.ci95_high) : 0; }
int side_of_one(const RatioEstimate& m) {
  return m.interval == RatioInterval::bounded ? side_of_one(m.ci95_low, m.ci95_high) : 0;
}

std::string percent_words(double share) { return fmt::format("{:.0f}%", 100 * share); }

// "95% CI +1.2% .. +5.0%" for a bounded interval of time ratios, as changes
// of the figure (a rate's ends swap).
std::string bounded_interval_words(double low, double high, const FigureTerms& terms) {
  const double a = figure_change(low, terms), b = figure_change(high, terms);
  return fmt::format("95% CI {:+.1f}% .. {:+.1f}%", 100 * std::min(a, b), 100 * std::max(a, b));
}

// "+4.1%", the change of the figure for a time ratio.
std::string change_words(double time_ratio, const FigureTerms& terms) {
  return fmt::format("{:+.1f}%", 100 * figure_change(time_ratio, terms));
}

// "slower by 4.1%" for a time; "45.3% fewer events/s" for a rate.
std::string direction_words(double time_ratio, const FigureTerms& terms) {
  const double change = std::fabs(figure_change(time_ratio, terms));
  if (terms.rate)
    return fmt::format("{:.1f}% {} {}", 100 * change, time_ratio > 1 ? "fewer" : "more",
                       terms.unit.empty() ? std::string("per second") : terms.unit);
  return fmt::format("{} by {:.1f}%", time_ratio > 1 ? "slower" : "faster", 100 * change);
}

}  // namespace

double figure_change(double time_ratio, const FigureTerms& terms) {
  return terms.rate ? 1 / time_ratio - 1 : time_ratio - 1;
}

bool Headline::bounded() const { return std::isfinite(time_low) && std::isfinite(time_high); }
double Headline::change() const { return figure_change(time_ratio, terms); }
// A rate's change falls as the time ratio rises: the ends swap.
double Headline::change_low() const {
  return bounded() ? figure_change(terms.rate ? time_high : time_low, terms) : kNoValue;
}
double Headline::change_high() const {
  return bounded() ? figure_change(terms.rate ? time_low : time_high, terms) : kNoValue;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::too_few_runs: return "too few runs";
    case Verdict::slower: return "slower";
    case Verdict::faster: return "faster";
    case Verdict::equivalent: return "equivalent";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "";
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (Verdict v : {Verdict::too_few_runs, Verdict::slower, Verdict::faster, Verdict::equivalent, Verdict::inconclusive})
    if (name == verdict_name(v)) return v;
  return std::nullopt;
}

std::optional<Headline::Basis> headline_basis_from_name(std::string_view name) {
  for (auto b : {Headline::Basis::robust, Headline::Basis::means, Headline::Basis::none})
    if (name == headline_basis_name(b)) return b;
  return std::nullopt;
}

std::optional<Headline::Form> headline_form_from_name(std::string_view name) {
  for (auto f : {Headline::Form::change, Headline::Form::time_added})
    if (name == headline_form_name(f)) return f;
  return std::nullopt;
}

const char* headline_basis_name(Headline::Basis basis) {
  switch (basis) {
    case Headline::Basis::robust: return "robust";
    case Headline::Basis::means: return "means";
    case Headline::Basis::none: return "none";
  }
  return "";
}

bool RobustRatio::bounded() const { return std::isfinite(ci95_low) && std::isfinite(ci95_high); }

double RobustRatio::half_width() const { return bounded() ? (ci95_high - ci95_low) / 2 : kNoValue; }

RobustRatio robust_ratio(RunFigures subject, RunFigures baseline) {
  const auto usable = [](double x) { return x > 0 && std::isfinite(x); };
  RobustRatio r;
  ShiftEstimate s;
  const bool paired = !subject.rounds.empty() && subject.rounds.size() == subject.values.size() &&
                      baseline.rounds.size() == baseline.values.size() && !baseline.rounds.empty();
  if (paired) {
    std::map<int, double> base_by_round;
    for (std::size_t i = 0; i < baseline.values.size(); ++i)
      if (usable(baseline.values[i])) base_by_round[baseline.rounds[i]] = baseline.values[i];
    std::vector<double> log_ratios;
    for (std::size_t i = 0; i < subject.values.size(); ++i) {
      const auto base = base_by_round.find(subject.rounds[i]);
      if (base != base_by_round.end() && usable(subject.values[i]))
        log_ratios.push_back(std::log(subject.values[i]) - std::log(base->second));
    }
    s = hodges_lehmann_paired(log_ratios);
    r.paired = true;
    r.pairs = log_ratios.size();
  } else {
    const auto logs = [&](std::span<const double> xs) {
      std::vector<double> out;
      for (double x : xs)
        if (usable(x)) out.push_back(std::log(x));
      return out;
    };
    s = hodges_lehmann_shift(logs(subject.values), logs(baseline.values));
  }
  r.ratio = std::exp(s.shift);
  r.ci95_low = std::exp(s.ci95_low);
  r.ci95_high = std::exp(s.ci95_high);
  r.exact = s.exact;
  return r;
}

Verdict judge(const RobustRatio& robust, const RatioEstimate& mean, double margin) {
  if (!robust.bounded()) {
    // Fewer rounds than the distribution-free interval needs: a difference
    // the means' interval and Welch's test both show is still named.
    if (mean.test.p_value < 0.05 && side_of_one(mean) != 0) return mean.ratio > 1 ? Verdict::slower : Verdict::faster;
    return Verdict::too_few_runs;
  }
  // A difference is claimed only where the mean's interval agrees: in twenty
  // seeded host-against-host runs of 20 rounds (bench/README.md, the null
  // experiment) the paired interval alone excluded 1 three times and the
  // mean's never. Rounds that drift together make the paired one too narrow.
  const int side = side_of_one(robust);
  if (side != 0 && side == side_of_one(mean)) return side > 0 ? Verdict::slower : Verdict::faster;
  if (within(robust.ci95_low, robust.ci95_high, margin) && mean.interval == RatioInterval::bounded &&
      within(mean.ci95_low, mean.ci95_high, margin))
    return Verdict::equivalent;
  return Verdict::inconclusive;
}

std::string ratio_interval_words(const RatioEstimate& r, const FigureTerms& terms) {
  switch (r.interval) {
    case RatioInterval::none:
      return "no 95% CI";
    case RatioInterval::unbounded:
      return "95% CI unbounded";
    case RatioInterval::reaches_zero:
      // Time ratios down to zero: a rate with no upper end.
      if (terms.rate) return fmt::format("95% CI {} .. unbounded", change_words(r.ci95_high, terms));
      return fmt::format("95% CI includes ratios <= 0 .. {:+.1f}%", 100 * (r.ci95_high - 1));
    case RatioInterval::bounded:
      break;
  }
  return bounded_interval_words(r.ci95_low, r.ci95_high, terms);
}

std::string robust_interval_words(const RobustRatio& r, const FigureTerms& terms) {
  if (!r.bounded()) return r.paired ? "no 95% CI: too few rounds with both" : "no 95% CI: too few runs";
  return bounded_interval_words(r.ci95_low, r.ci95_high, terms);
}

std::string headline_interval_words(const Headline& h) {
  if (!h.bounded()) return "no 95% CI";
  return fmt::format("95% CI {:+.1f}% .. {:+.1f}%", 100 * h.change_low(), 100 * h.change_high());
}

Headline headline_of(const RobustRatio& robust, const RatioEstimate& mean, const FigureTerms& terms) {
  Headline h;
  h.terms = terms;
  if (robust.bounded()) {
    h.basis = Headline::Basis::robust;
    h.time_ratio = robust.ratio;
    h.time_low = robust.ci95_low;
    h.time_high = robust.ci95_high;
  } else if (mean.interval == RatioInterval::bounded) {
    h.basis = Headline::Basis::means;
    h.time_ratio = mean.ratio;
    h.time_low = mean.ci95_low;
    h.time_high = mean.ci95_high;
  } else {
    h.time_ratio = std::isfinite(robust.ratio) && robust.ratio > 0 ? robust.ratio : mean.ratio;
  }
  return h;
}

const char* headline_form_name(Headline::Form form) {
  return form == Headline::Form::time_added ? "time_added" : "change";
}

std::string FigureTerms::added_number(double seconds) const {
  // Whole nanoseconds: a tenth of one says nothing.
  return added_unit == "ns" ? fmt::format("{:+.0f}", added_scale * seconds)
                            : fmt::format("{:+.1f}", added_scale * seconds);
}

std::string FigureTerms::added(double seconds) const { return added_number(seconds) + " " + added_unit; }

std::string FigureTerms::amount(double seconds) const {
  return added_unit == "ns" ? fmt::format("{:.0f} {}", added_scale * seconds, added_unit)
                           : fmt::format("{:.2f} {}", added_scale * seconds, added_unit);
}

std::string added_time_words(const Overhead& o) { return added_time_words(o, o.headline.terms.added_per()); }

std::string headline_short_words(const Overhead& o) {
  const Headline& h = o.headline;
  if (h.form == Headline::Form::time_added) {
    const DifferenceEstimate& d = o.added;
    const FigureTerms& t = h.terms;
    if (!std::isfinite(d.ci95_low)) return fmt::format("{} (no 95% CI)", t.added(d.difference));
    return fmt::format("{} ({} .. {})", t.added(d.difference), t.added_number(d.ci95_low),
                       t.added_number(d.ci95_high));
  }
  if (!h.bounded()) return fmt::format("{:+.1f}% (no 95% CI)", 100 * h.change());
  return fmt::format("{:+.1f}% ({:+.1f} .. {:+.1f})", 100 * h.change(), 100 * h.change_low(), 100 * h.change_high());
}

std::string added_time_words(const Overhead& o, const std::string& per) {
  const DifferenceEstimate& d = o.added;
  const FigureTerms& t = o.headline.terms;
  const std::string interval =
      std::isfinite(d.ci95_low)
          ? fmt::format(" (95% CI {} .. {})", t.added_number(d.ci95_low), t.added(d.ci95_high))
          : "";
  return fmt::format("{} per {}{}", t.added(d.difference), per, interval);
}

void conclude(Overhead& o, ComparisonWording wording) {
  o.verdict = judge(o.robust, o.estimate, o.margin);
  o.headline = headline_of(o.robust, o.estimate, o.terms);
  const double r = o.headline.time_ratio;
  const bool near_zero_baseline = std::isfinite(r) && r > 0 && (r > kTimeAddedRatio || r < 1 / kTimeAddedRatio);
  if (!o.terms.rate && std::isfinite(o.added.difference) && (o.terms.time_added || near_zero_baseline))
    o.headline.form = Headline::Form::time_added;
  // A difference is claimed where both intervals exclude 1: the wider one
  // sets what the run can find.
  const double mean_half_width = o.estimate.interval == RatioInterval::bounded
                                     ? (o.estimate.ci95_high - o.estimate.ci95_low) / 2
                                     : std::nan("");
  o.min_detectable = kDetectablePerHalfWidth * std::max(o.robust.half_width(), mean_half_width);
  o.not_ruled_out = kNoValue;
  if (o.robust.bounded() && o.estimate.interval == RatioInterval::bounded)
    o.not_ruled_out = std::max(o.robust.ci95_high, o.estimate.ci95_high) - 1;
  o.mean_disagrees = o.robust.bounded() && o.verdict == Verdict::inconclusive &&
                     (side_of_one(o.estimate) != 0 || side_of_one(o.robust) != 0);
  o.verdict_text = verdict_words(o, wording);
}

Overhead compare_figures(const std::string& env, RunFigures subject, RunFigures baseline, ComparisonWording wording,
                         double margin, const FigureTerms& terms) {
  Overhead o;
  o.env = env;
  o.terms = terms;
  o.margin = margin;
  o.robust = robust_ratio(subject, baseline);
  o.estimate = ratio_of_means(subject.values, baseline.values);
  o.added = difference_of_means(subject.values, baseline.values);
  o.baseline_mean = mean(baseline.values);
  o.rank_test = mann_whitney_u(subject.values, baseline.values);
  o.runs_compared = std::min(subject.values.size(), baseline.values.size());
  // Six pairs (or four runs a side) give the first robust interval.
  if (!o.robust.bounded())
    o.runs_needed = std::max<std::size_t>({std::size_t{6}, subject.values.size() + 1, baseline.values.size() + 1});
  // Runs that would bound the mean's interval.
  if (o.estimate.interval == RatioInterval::unbounded)
    o.runs_needed = std::max(o.runs_needed, runs_to_bound_mean(baseline.values));
  if (o.estimate.interval == RatioInterval::reaches_zero)
    o.runs_needed = std::max(o.runs_needed, runs_to_bound_mean(subject.values));
  conclude(o, wording);
  return o;
}

namespace {

// "+283.1 ms per start", the time a sample adds.
std::string added_per(const FigureTerms& terms, double seconds) {
  return fmt::format("{} per {}", terms.added(seconds), terms.added_per());
}

// The verdict said in time added (Headline::Form::time_added): never a share
// or a ratio of a near-zero baseline.
std::string time_added_short_verdict(const Overhead& o, ComparisonWording wording) {
  const std::string& per = o.headline.terms.added_per();
  const std::string what = wording == ComparisonWording::overhead ? "time added" : "difference";
  switch (o.verdict) {
    case Verdict::too_few_runs:
      return fmt::format("cannot tell yet: {}; give --runs {}", counted(o.runs_compared, "run", "runs"), o.runs_needed);
    // The milliseconds are the overhead's own column, beside the verdict.
    case Verdict::slower:
      return "slower";
    case Verdict::faster:
      return "faster";
    case Verdict::equivalent:
      return fmt::format("no {} above {} per {}", what, o.headline.terms.amount(o.margin * o.baseline_mean), per);
    case Verdict::inconclusive:
      break;
  }
  if (!std::isfinite(o.added.ci95_high)) return "none measurable, none ruled out";
  return fmt::format("none measurable, up to {} not ruled out", o.headline.terms.added(o.added.ci95_high));
}

std::string time_added_verdict(const Overhead& o, ComparisonWording wording) {
  const std::string interval =
      std::isfinite(o.added.ci95_low)
          ? fmt::format("95% CI {} .. {}, Welch", o.headline.terms.added_number(o.added.ci95_low),
                        o.headline.terms.added(o.added.ci95_high))
          : std::string("no 95% CI");
  const double p = o.estimate.test.p_value;
  const std::string tested = std::isfinite(p) ? fmt::format("{}; p = {:.2g}", interval, p) : interval;
  switch (o.verdict) {
    case Verdict::too_few_runs:
      return fmt::format("cannot tell yet: {} from {} ({}; give --runs {} or more)", added_per(o.headline.terms, o.added.difference),
                         counted(o.runs_compared, "run", "runs"), tested, o.runs_needed);
    case Verdict::slower:
    case Verdict::faster:
      if (!o.robust.bounded())
        return fmt::format("{}: {} ({}; too few rounds for the robust interval: the verdict rests on the means' interval, which "
                           "assumes normally spread runs; give --runs {} or more)",
                           time_added_short_verdict(o, wording), added_per(o.headline.terms, o.added.difference), tested,
                           o.runs_needed);
      return fmt::format("{}: {} ({})", time_added_short_verdict(o, wording), added_per(o.headline.terms, o.added.difference), tested);
    case Verdict::equivalent:
      return fmt::format("{} (equivalence at 95%; {}: {})", time_added_short_verdict(o, wording),
                         added_per(o.headline.terms, o.added.difference), tested);
    case Verdict::inconclusive:
      break;
  }
  return fmt::format("no measurable time added: {} ({}){}", added_per(o.headline.terms, o.added.difference), tested,
                     std::isfinite(o.added.ci95_high)
                         ? fmt::format(", but this run cannot rule out up to {}", added_per(o.headline.terms, o.added.ci95_high))
                         : fmt::format(", but this run cannot bound it (give --runs {} or more)", o.runs_needed));
}

}  // namespace

std::string short_verdict_words(const Overhead& o, ComparisonWording wording) {
  if (o.headline.form == Headline::Form::time_added) return time_added_short_verdict(o, wording);
  const std::string what = wording == ComparisonWording::overhead ? "overhead" : "difference";
  const FigureTerms& t = o.headline.terms;
  switch (o.verdict) {
    case Verdict::too_few_runs:
      return fmt::format("cannot tell yet: {}; give --runs {}", counted(o.runs_compared, "run", "runs"), o.runs_needed);
    case Verdict::slower:
    case Verdict::faster:
      return direction_words(o.headline.time_ratio, t);
    case Verdict::equivalent:
      return fmt::format("no {} above {}", what, percent_words(o.margin));
    case Verdict::inconclusive:
      break;
  }
  if (!std::isfinite(o.not_ruled_out)) return "none measurable, none ruled out";
  // The worst the intervals leave possible, in the figure's terms.
  if (t.rate)
    return fmt::format("none measurable, up to {:.1f}% fewer {} not ruled out",
                       -100 * figure_change(1 + o.not_ruled_out, t), t.unit.empty() ? "per second" : t.unit);
  return fmt::format("none measurable, up to {:+.1f}% not ruled out", 100 * o.not_ruled_out);
}

std::string verdict_words(const Overhead& o, ComparisonWording wording) {
  if (o.headline.form == Headline::Form::time_added) return time_added_verdict(o, wording);
  const std::string what = wording == ComparisonWording::overhead ? "overhead" : "difference";
  const std::string reference = wording == ComparisonWording::overhead ? "the baseline's" : "A's";
  const FigureTerms& t = o.headline.terms;
  std::string mean =
      fmt::format("mean {}, {}", change_words(o.estimate.ratio, t), ratio_interval_words(o.estimate, t));
  if (o.estimate.interval == RatioInterval::unbounded)
    mean += fmt::format(": with {} runs {} mean is too uncertain to bound the ratio",
                        static_cast<long>(o.estimate.ci95_df) + 1, reference);
  std::string stalls;
  if (o.mean_disagrees && side_of_one(o.estimate) != 0)
    stalls = fmt::format("; the mean says {}: a few runs far off the rest carry the difference (see the outliers and "
                         "disturbed runs)",
                         direction_words(o.estimate.ratio, t));
  else if (o.mean_disagrees)
    stalls = fmt::format("; the robust interval alone says {}, the mean's does not: not claimed (rounds that drift "
                         "together make the robust one too narrow; more runs settle it)",
                         direction_words(o.robust.ratio, t));
  switch (o.verdict) {
    case Verdict::too_few_runs: {
      // Too few runs is no verdict either way: never "no difference", and
      // never against the p-value printed beside it.
      const std::string tell = fmt::format("cannot tell yet: {} from {}", change_words(o.headline.time_ratio, t),
                                           counted(o.runs_compared, "run", "runs"));
      if (o.estimate.interval == RatioInterval::none)
        return fmt::format("{}, too few for a confidence interval (give --runs {} or more)", tell, o.runs_needed);
      const double p = o.estimate.test.p_value;
      const bool means_differ = side_of_one(o.estimate) != 0 || (std::isfinite(p) && p < 0.05);
      const std::string means =
          means_differ ? fmt::format("the means alone say {} ({}, Welch p = {:.2g}), which so few runs cannot carry",
                                     direction_words(o.estimate.ratio, t), mean, p)
                       : fmt::format("nor can the means tell ({}, Welch p = {:.2g})", mean, p);
      return fmt::format("{}, too few for the robust interval; {} (give --runs {} or more)", tell, means,
                         o.runs_needed);
    }
    case Verdict::slower:
    case Verdict::faster:
      if (!o.robust.bounded())
        return fmt::format("{} ({}, Welch p = {:.2g}; {}: the verdict rests on the means' interval, which assumes "
                           "normally spread runs; give --runs {} or more)",
                           short_verdict_words(o, wording), mean, o.estimate.test.p_value,
                           robust_interval_words(o.robust, t), o.runs_needed);
      return fmt::format("{} ({}; {}){}", short_verdict_words(o, wording), robust_interval_words(o.robust, t), mean,
                         stalls);
    case Verdict::equivalent:
      return fmt::format("no {} above {} (equivalence at 95%: {}; {})", what, percent_words(o.margin),
                         robust_interval_words(o.robust, t), mean);
    case Verdict::inconclusive:
      break;
  }
  const std::string measured = fmt::format("no measurable {}: {} ({}; {})", what, change_words(o.robust.ratio, t),
                                            robust_interval_words(o.robust, t), mean);
  if (!std::isfinite(o.not_ruled_out))
    return fmt::format("{}, but this run cannot bound it (give --runs {} or more){}", measured, o.runs_needed, stalls);
  if (t.rate)
    return fmt::format("{}, but this run cannot rule out up to {:.1f}% fewer {}{}", measured,
                       -100 * figure_change(1 + o.not_ruled_out, t), t.unit.empty() ? "per second" : t.unit, stalls);
  return fmt::format("{}, but this run cannot rule out up to {:+.1f}%{}", measured, 100 * o.not_ruled_out, stalls);
}

}  // namespace dlcbench
