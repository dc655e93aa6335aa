#include "analysis/ablation_shares.h"

#include <algorithm>
#include <bit>
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

DifferenceEstimate as_difference(const ShareEstimate& s) { return {s.share, s.ci95_low, s.ci95_high}; }

// s! (k - s - 1)! / k!: the weight of adding a feature to a set of s others
// in the Shapley value, the average over all k! orders of changing them.
double shapley_weight(int s, int k) {
  auto factorial = [](int n) {
    double f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
  };
  return factorial(s) * factorial(k - s - 1) / factorial(k);
}

// One evaluation of the factorial design: the cells' means (cell mask ->
// seconds per sample) and the baseline's, to each feature's Shapley value,
// the residual and the overhead they add up to.
struct FactorialValues {
  std::vector<double> shapley;
  double residual = 0;
  double overhead = 0;
};

FactorialValues factorial_values(const std::vector<double>& cell_means, double baseline_mean, int k) {
  FactorialValues v;
  const unsigned all = (1u << k) - 1;
  for (int i = 0; i < k; ++i) {
    const unsigned bit = 1u << i;
    double phi = 0;
    for (unsigned others = 0; others <= all; ++others)
      if (!(others & bit))
        phi += shapley_weight(std::popcount(others), k) * (cell_means[others] - cell_means[others | bit]);
    v.shapley.push_back(phi);
  }
  v.residual = cell_means[all] - baseline_mean;
  v.overhead = cell_means[0] - baseline_mean;
  return v;
}

// The label of each cell, by mask over the plan's variants: 0 is the
// environment explained, one bit a variant, more a combination.
std::vector<std::string> cell_labels(const AblationPlan& plan) {
  const std::size_t k = plan.variants.size();
  std::vector<std::string> labels(std::size_t{1} << k);
  labels[0] = plan.of;
  for (std::size_t i = 0; i < k; ++i) labels[std::size_t{1} << i] = plan.variants[i].label;
  for (const auto& c : plan.combinations) {
    unsigned mask = 0;
    for (AblationFeature f : c.features)
      for (std::size_t i = 0; i < k; ++i)
        if (plan.variants[i].feature == f) mask |= 1u << i;
    if (mask < labels.size()) labels[mask] = c.label;
  }
  return labels;
}

// Each run's value by its round.
std::map<int, double> by_round(const EnvironmentStats& e) {
  std::map<int, double> values;
  for (std::size_t i = 0; i < e.run_values.size() && i < e.run_rounds.size(); ++i) values[e.run_rounds[i]] = e.run_values[i];
  return values;
}

// Shapley shares and the residual, from the rounds in which every cell and
// the baseline ran. The bootstrap resamples those rounds, one draw for all
// cells: launches of one round run back to back, so drift between rounds
// cancels as it does in every paired comparison.
void add_factorial(CaseAblation& a, const CaseAnalysis& ca, const AblationPlan& plan, std::size_t resamples) {
  const int k = static_cast<int>(plan.variants.size());
  const std::vector<std::string> labels = cell_labels(plan);
  std::vector<std::map<int, double>> cells;
  for (const auto& label : labels) {
    const EnvironmentStats* e = label.empty() ? nullptr : find_environment(ca, label);
    if (!e || e->run_values.empty()) {
      a.factorial_gap = fmt::format("{} has no runs (see the notes)", label.empty() ? "a factorial cell" : label);
      return;
    }
    cells.push_back(by_round(*e));
  }
  const std::map<int, double> baseline = by_round(*find_environment(ca, a.baseline));
  std::vector<int> rounds;
  for (const auto& [round, value] : baseline)
    if (std::all_of(cells.begin(), cells.end(), [round = round](const auto& c) { return c.count(round) > 0; }))
      rounds.push_back(round);
  if (rounds.size() < 3) {
    a.factorial_gap = fmt::format("only {} round{} ran every one of the {} cells and the baseline; 3 are needed",
                                  rounds.size(), rounds.size() == 1 ? "" : "s", cells.size());
    return;
  }
  auto evaluate = [&](const std::vector<int>& chosen) {
    std::vector<double> means(cells.size(), 0);
    double baseline_mean = 0;
    for (int round : chosen) {
      for (std::size_t c = 0; c < cells.size(); ++c) means[c] += cells[c].at(round);
      baseline_mean += baseline.at(round);
    }
    const double n = static_cast<double>(chosen.size());
    for (double& m : means) m /= n;
    return factorial_values(means, baseline_mean / n, k);
  };
  const FactorialValues point = evaluate(rounds);
  std::mt19937_64 rng(23);
  std::uniform_int_distribution<std::size_t> pick(0, rounds.size() - 1);
  std::vector<std::vector<double>> phi_seconds(k), phi_shares(k);
  std::vector<double> residual_seconds, residual_shares, together;
  std::vector<int> chosen(rounds.size());
  for (std::size_t r = 0; r < resamples; ++r) {
    for (int& round : chosen) round = rounds[pick(rng)];
    const FactorialValues v = evaluate(chosen);
    double sum = 0;
    for (int i = 0; i < k; ++i) {
      phi_seconds[i].push_back(v.shapley[i]);
      phi_shares[i].push_back(v.shapley[i] / v.overhead);
      sum += v.shapley[i] / v.overhead;
    }
    residual_seconds.push_back(v.residual);
    residual_shares.push_back(v.residual / v.overhead);
    together.push_back(sum);
  }
  double together_point = 0;
  for (int i = 0; i < k; ++i) {
    a.effects[i].shapley_seconds = as_difference(percentile_interval(phi_seconds[i], point.shapley[i]));
    a.effects[i].shapley = percentile_interval(phi_shares[i], point.shapley[i] / point.overhead);
    together_point += point.shapley[i] / point.overhead;
  }
  AblationResidual residual;
  residual.env = labels.back();
  residual.seconds = as_difference(percentile_interval(residual_seconds, point.residual));
  residual.significant = excludes_zero(residual.seconds);
  residual.share = percentile_interval(residual_shares, point.residual / point.overhead);
  a.residual = residual;
  a.together = percentile_interval(together, together_point);
}

// The outcome of a factorial: the residual says what the features leave.
AblationOutcome factorial_outcome(const CaseAblation& a) {
  const AblationResidual& r = *a.residual;
  if (!r.significant) return AblationOutcome::accounted;
  if (r.seconds.difference < 0) return AblationOutcome::over_accounted;
  const bool any = std::any_of(a.effects.begin(), a.effects.end(), [](const FeatureEffect& e) {
    return e.shapley_seconds && e.shapley_seconds->difference > 0 && excludes_zero(*e.shapley_seconds);
  });
  return any ? AblationOutcome::partly_accounted : AblationOutcome::none_accounted;
}

}  // namespace

CaseAblation analyze_ablation(const CaseAnalysis& ca, const AblationPlan& plan, const std::string& baseline,
                              const std::map<std::string, std::vector<std::string>>& requested_fields,
                              std::size_t resamples) {
  CaseAblation a;
  a.of = plan.of;
  a.baseline = baseline;
  a.per = ca.sample_noun_one();
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
    if (vs && vs->fingerprint && vs->fingerprint->is_object() && vs->fingerprint->value("/container/runtime"_json_pointer, "") == "runsc")
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

  a.factorial = plan.factorial;
  if (plan.factorial) add_factorial(a, ca, plan, resamples);

  const bool any_measured = std::any_of(a.effects.begin(), a.effects.end(), [](const auto& e) { return e.measured; });
  if (!a.overhead_significant)
    a.outcome = AblationOutcome::no_overhead;
  else if (a.residual)
    a.outcome = factorial_outcome(a);
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
  if (e.shapley_seconds)
    words += fmt::format("; its Shapley share, over every order of changing the features, is {} ({}): {} per {}",
                         percent(e.shapley.share), share_interval(e.shapley), milliseconds(e.shapley_seconds->difference),
                         sample_noun);
  if (!e.fields.empty() && !e.fields_changed)
    words += fmt::format("; but its fingerprint shows no change in {}: the variant did not do what it claims",
                         fmt::join(e.fields, ", "));
  return words;
}

namespace {

std::string residual_words(const CaseAblation& a) {
  const AblationResidual& r = *a.residual;
  return fmt::format("the residual, {} against {} with every feature changed, is {} ({}; {} per {}, 95% CI {} .. {})",
                     r.env, a.baseline, percent(r.share.share), share_interval(r.share),
                     milliseconds(r.seconds.difference), a.per, milliseconds(r.seconds.ci95_low),
                     milliseconds(r.seconds.ci95_high));
}

std::string outcome_words(const CaseAblation& a) {
  if (a.residual && a.outcome != AblationOutcome::no_overhead) {
    switch (a.outcome) {
      case AblationOutcome::accounted:
        return fmt::format("the features account for the overhead of {} ({}, {}): {}, within its interval of 0",
                           a.of, percent(a.together.share), share_interval(a.together), residual_words(a));
      case AblationOutcome::over_accounted:
        return fmt::format("with every feature changed {} is faster than {}: {}; the features take away more than "
                           "the overhead",
                           a.of, a.baseline, residual_words(a));
      default:
        return fmt::format("the features account for {} of the overhead of {} ({}); {}: it comes from what no "
                           "feature changes (the runtime itself, its image, or features not ablated)",
                           percent(a.together.share), a.of, share_interval(a.together), residual_words(a));
    }
  }
  switch (a.outcome) {
    case AblationOutcome::too_few_runs:
      return fmt::format("{} against {}: too few runs to share out its overhead", a.of, a.baseline);
    case AblationOutcome::no_overhead:
      return fmt::format("{} is not significantly slower than {} ({} per {}, 95% CI {} .. {}): there is no "
                         "overhead to share out",
                         a.of, a.baseline, milliseconds(a.overhead.difference), a.per, milliseconds(a.overhead.ci95_low),
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

}  // namespace

std::string ablation_outcome_words(const CaseAblation& a) {
  std::string words = outcome_words(a);
  if (a.factorial && !a.residual && a.overhead_significant && !a.factorial_gap.empty())
    words += fmt::format("; no Shapley shares or residual: {}", a.factorial_gap);
  return words;
}

}  // namespace dlcbench
