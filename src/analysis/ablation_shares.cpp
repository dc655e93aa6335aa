#include "analysis/ablation_shares.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include <fmt/format.h>

#include "analysis/analysis.h"

namespace dlcbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The mean of a resample with replacement.
double resampled_mean(const std::vector<double>& xs, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, xs.size() - 1);
  double sum = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sum += xs[pick(rng)];
  return sum / static_cast<double>(xs.size());
}

ShareEstimate percentile_interval(std::vector<double> values, double point) {
  ShareEstimate s{point, kNaN, kNaN};
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
               values.end());
  if (values.size() < 100) return s;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
  };
  s.ci95_low = at(0.025);
  s.ci95_high = at(0.975);
  return s;
}

bool excludes_zero(const DifferenceEstimate& d) {
  return std::isfinite(d.ci95_low) && std::isfinite(d.ci95_high) && (d.ci95_low > 0 || d.ci95_high < 0);
}

// Fields asked for by one label and not the other: what the variant's one
// option should show in its fingerprint.
std::vector<std::string> fields_between(const std::map<std::string, std::vector<std::string>>& requested,
                                        const std::string& a, const std::string& b) {
  auto of = [&](const std::string& label) {
    const auto it = requested.find(label);
    return it == requested.end() ? std::set<std::string>{} : std::set<std::string>(it->second.begin(), it->second.end());
  };
  const auto fa = of(a), fb = of(b);
  std::vector<std::string> out;
  std::set_symmetric_difference(fa.begin(), fa.end(), fb.begin(), fb.end(), std::back_inserter(out));
  return out;
}

bool any_field_differs(const EnvironmentStats& x, const EnvironmentStats& y, const std::vector<std::string>& fields) {
  if (!x.fingerprint || !y.fingerprint) return false;
  for (const auto& field : fields) {
    const nlohmann::json::json_pointer at(field);
    const auto vx = x.fingerprint->contains(at) ? x.fingerprint->at(at) : nlohmann::json();
    const auto vy = y.fingerprint->contains(at) ? y.fingerprint->at(at) : nlohmann::json();
    if (vx != vy) return true;
  }
  return false;
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

std::string share_interval(const ShareEstimate& s) {
  if (!std::isfinite(s.ci95_low) || !std::isfinite(s.ci95_high)) return "no 95% CI: too few runs";
  return fmt::format("95% CI {} .. {}", percent(s.ci95_low), percent(s.ci95_high));
}

std::string milliseconds(double seconds) { return fmt::format("{:+.3g} ms", 1000 * seconds); }

}  // namespace

CaseAblation analyze_ablation(const CaseAnalysis& ca, const AblationPlan& plan, const std::string& baseline,
                              const std::map<std::string, std::vector<std::string>>& requested_fields,
                              std::size_t resamples) {
  CaseAblation a;
  a.of = plan.of;
  a.baseline = baseline;
  const EnvironmentStats* base = find_environment(ca, baseline);
  const EnvironmentStats* of = find_environment(ca, plan.of);
  a.measured = base && of && base->run_values.size() >= 2 && of->run_values.size() >= 2;
  if (a.measured) {
    a.overhead = difference_of_means(of->run_values, base->run_values);
    a.overhead_significant = a.overhead.difference > 0 && excludes_zero(a.overhead);
  }
  std::vector<const EnvironmentStats*> variants;
  for (const auto& v : plan.variants) {
    FeatureEffect e;
    e.feature = v.feature;
    e.env = v.label;
    e.change = v.change;
    const EnvironmentStats* vs = find_environment(ca, v.label);
    e.measured = a.measured && vs && vs->run_values.size() >= 2;
    e.fields = fields_between(requested_fields, v.label, plan.of);
    // Inside gVisor the namespaces are its own kernel's: the host's network
    // stack (runsc --network=host) shows in none of them.
    if (vs && vs->fingerprint && vs->fingerprint->value("/container/runtime"_json_pointer, "") == "runsc")
      std::erase_if(e.fields, [](const std::string& f) { return f.ends_with("_namespace"); });
    if (e.measured) {
      e.saved = difference_of_means(of->run_values, vs->run_values);
      e.significant = excludes_zero(e.saved);
      e.share.share = e.saved.difference / a.overhead.difference;
      e.fields_changed = any_field_differs(*vs, *of, e.fields);
    }
    variants.push_back(e.measured ? vs : nullptr);
    a.effects.push_back(std::move(e));
  }
  if (!a.measured) return a;

  // One resample draws every environment's runs anew; the shares of one
  // resample share its overhead, so their sum's interval is honest too.
  std::mt19937_64 rng(20);
  std::vector<std::vector<double>> shares(a.effects.size());
  std::vector<double> together;
  double together_point = 0;
  for (const auto& e : a.effects)
    if (e.measured) together_point += e.share.share;
  for (std::size_t r = 0; r < resamples; ++r) {
    const double m_of = resampled_mean(of->run_values, rng);
    const double overhead = m_of - resampled_mean(base->run_values, rng);
    double sum = 0;
    for (std::size_t i = 0; i < a.effects.size(); ++i) {
      if (!variants[i]) continue;
      const double share = (m_of - resampled_mean(variants[i]->run_values, rng)) / overhead;
      shares[i].push_back(share);
      sum += share;
    }
    together.push_back(sum);
  }
  for (std::size_t i = 0; i < a.effects.size(); ++i)
    if (variants[i]) a.effects[i].share = percentile_interval(shares[i], a.effects[i].share.share);
  a.together = percentile_interval(together, together_point);

  const bool any_measured = std::any_of(a.effects.begin(), a.effects.end(), [](const auto& e) { return e.measured; });
  if (!a.overhead_significant)
    a.outcome = AblationOutcome::no_overhead;
  else if (!any_measured || !std::isfinite(a.together.ci95_low))
    a.outcome = AblationOutcome::too_few_runs;
  else if (std::none_of(a.effects.begin(), a.effects.end(),
                        [](const auto& e) { return e.significant && e.saved.difference > 0; }))
    a.outcome = AblationOutcome::none_accounted;
  else if (a.together.ci95_high < 1)
    a.outcome = AblationOutcome::partly_accounted;
  else if (a.together.ci95_low > 1)
    a.outcome = AblationOutcome::over_accounted;
  else
    a.outcome = AblationOutcome::accounted;
  return a;
}

std::string feature_effect_words(const FeatureEffect& e, const std::string& sample_noun) {
  if (!e.measured) return fmt::format("{} ({}): not measured: the variant has no runs (see the notes)", e.change, e.env);
  const std::string saved = fmt::format("saves {} per {} (95% CI {} .. {})", milliseconds(e.saved.difference),
                                        sample_noun, milliseconds(e.saved.ci95_low), milliseconds(e.saved.ci95_high));
  std::string words;
  if (!e.significant)
    words = fmt::format("{}: no measurable difference, it {}", e.change, saved);
  else if (e.saved.difference > 0)
    words = fmt::format("{} takes away {} of the overhead ({}): it {}", e.change, percent(e.share.share),
                        share_interval(e.share), saved);
  else
    words = fmt::format("{} makes it slower: it {}", e.change, saved);
  if (!e.fields.empty() && !e.fields_changed)
    words += fmt::format("; but its fingerprint shows no change in {}: the variant did not do what it claims",
                         fmt::join(e.fields, ", "));
  return words;
}

std::string ablation_outcome_words(const CaseAblation& a) {
  switch (a.outcome) {
    case AblationOutcome::too_few_runs:
      return fmt::format("{} against {}: too few runs to share out its overhead", a.of, a.baseline);
    case AblationOutcome::no_overhead:
      return fmt::format("{} is not significantly slower than {} ({} per sample, 95% CI {} .. {}): there is no "
                         "overhead to share out",
                         a.of, a.baseline, milliseconds(a.overhead.difference), milliseconds(a.overhead.ci95_low),
                         milliseconds(a.overhead.ci95_high));
    case AblationOutcome::accounted:
      return fmt::format("together the features changed account for the overhead of {} ({}, {})", a.of,
                         percent(a.together.share), share_interval(a.together));
    case AblationOutcome::none_accounted:
      return fmt::format("no feature changed takes away a measurable part of the overhead of {} (together {}, {}): "
                         "it comes from what no variant changes (the runtime itself, its image, or features not "
                         "ablated)",
                         a.of, percent(a.together.share), share_interval(a.together));
    case AblationOutcome::partly_accounted:
      return fmt::format("together the features changed account for only {} of the overhead of {} ({}): the rest "
                         "comes from what no variant changes (the runtime itself, its image, or features not "
                         "ablated)",
                         percent(a.together.share), a.of, share_interval(a.together));
    case AblationOutcome::over_accounted:
      return fmt::format("together the features changed take away more than the overhead of {} ({}, {}): they "
                         "overlap or interact, so their shares do not add up",
                         a.of, percent(a.together.share), share_interval(a.together));
  }
  return "";
}

}  // namespace dlcbench
