#include "analysis/overhead.h"

#include <cmath>

#include <fmt/format.h>

namespace dlcbench {
namespace {

constexpr double kAlpha = 0.05;

}  // namespace

Verdict judge(const RatioEstimate& r) {
  if (r.interval == RatioInterval::none) return Verdict::too_few_runs;
  if (r.interval != RatioInterval::bounded) return Verdict::inconclusive;
  if (r.test.p_value < kAlpha && (r.ci95_low > 1 || r.ci95_high < 1))
    return r.ratio > 1 ? Verdict::slower : Verdict::faster;
  if (r.ci95_low >= 1 - kEquivalenceMargin && r.ci95_high <= 1 + kEquivalenceMargin)
    return Verdict::no_measurable_overhead;
  return Verdict::inconclusive;
}

std::string ratio_interval_words(const RatioEstimate& r) {
  switch (r.interval) {
    case RatioInterval::none:
      return "no 95% CI";
    case RatioInterval::unbounded:
      return "95% CI unbounded";
    case RatioInterval::reaches_zero:
      return fmt::format("95% CI includes ratios <= 0 .. {:+.1f}%", 100 * (r.ci95_high - 1));
    case RatioInterval::bounded:
      break;
  }
  return fmt::format("95% CI {:+.1f}% .. {:+.1f}%", 100 * (r.ci95_low - 1), 100 * (r.ci95_high - 1));
}

std::string added_time_words(const Overhead& o, const std::string& per) {
  const DifferenceEstimate& d = o.added;
  const std::string interval = std::isfinite(d.ci95_low)
                                   ? fmt::format(" (95% CI {:+.1f} .. {:+.1f} ms)", 1e3 * d.ci95_low, 1e3 * d.ci95_high)
                                   : "";
  return fmt::format("{:+.1f} ms per {}{}", 1e3 * d.difference, per, interval);
}

Overhead compare_run_values(const std::string& env, std::span<const double> subject, std::span<const double> baseline,
                            ComparisonWording wording) {
  Overhead o;
  o.env = env;
  o.estimate = ratio_of_means(subject, baseline);
  o.added = difference_of_means(subject, baseline);
  o.rank_test = mann_whitney_u(subject, baseline);
  o.verdict = judge(o.estimate);
  if (o.estimate.interval == RatioInterval::none) o.runs_needed = 2;
  // Unbounded: the baseline's mean is too uncertain; reaching zero: the subject's.
  if (o.estimate.interval == RatioInterval::unbounded) o.runs_needed = runs_to_bound_mean(baseline);
  if (o.estimate.interval == RatioInterval::reaches_zero) o.runs_needed = runs_to_bound_mean(subject);
  o.verdict_text = verdict_words(o, wording);
  return o;
}

std::string short_verdict_words(const Overhead& o, ComparisonWording wording) {
  const double change = 100 * std::fabs(o.estimate.ratio - 1);
  switch (o.verdict) {
    case Verdict::too_few_runs:
      return "too few runs";
    case Verdict::slower:
      return fmt::format("slower by {:.1f}%", change);
    case Verdict::faster:
      return fmt::format("faster by {:.1f}%", change);
    case Verdict::no_measurable_overhead:
      return wording == ComparisonWording::overhead ? "no measurable overhead" : "no measurable difference";
    case Verdict::inconclusive:
      break;
  }
  return "inconclusive";
}

std::string verdict_words(const Overhead& o, ComparisonWording wording) {
  const RatioEstimate& r = o.estimate;
  const std::string change = fmt::format("{:+.1f}%", 100 * (r.ratio - 1));
  const std::string p = std::isfinite(r.test.p_value) ? fmt::format(", p = {:.2g}", r.test.p_value) : "";
  const std::string more_runs = fmt::format("give --runs {} or more", o.runs_needed);
  switch (o.verdict) {
    case Verdict::too_few_runs:
      return fmt::format("{}; too few runs for a confidence interval ({})", change, more_runs);
    case Verdict::slower:
    case Verdict::faster:
    case Verdict::no_measurable_overhead:
      return fmt::format("{} ({}{}{})", short_verdict_words(o, wording), ratio_interval_words(r),
                         o.verdict == Verdict::no_measurable_overhead
                             ? fmt::format(", within +-{:.0f}%", 100 * kEquivalenceMargin)
                             : "",
                         p);
    case Verdict::inconclusive:
      break;
  }
  const std::string reference = wording == ComparisonWording::overhead ? "the baseline's" : "A's";
  if (r.interval == RatioInterval::unbounded)
    return fmt::format("inconclusive: {} ({}: with {} runs {} mean is too uncertain to bound the ratio; {})", change,
                       ratio_interval_words(r), static_cast<long>(r.ci95_df) + 1, reference, more_runs);
  if (r.interval == RatioInterval::reaches_zero)
    return fmt::format("inconclusive: {} ({}{}: too few runs or too noisy to bound it; {})", change,
                       ratio_interval_words(r), p, more_runs);
  return fmt::format("inconclusive: {} ({}{}: wider than +-{:.0f}%, so neither {} nor its absence is shown)", change,
                     ratio_interval_words(r), p, 100 * kEquivalenceMargin,
                     wording == ComparisonWording::overhead ? "an overhead" : "a difference");
}

}  // namespace dlcbench
