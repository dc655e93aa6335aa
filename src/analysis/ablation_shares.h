// `dlcbench explain`: per case, what each ablation variant takes away of the
// explained environment's overhead. A feature's share is
//   (env - variant) / (env - baseline)
// in seconds per sample: 1 means that feature alone is the whole overhead.
// Its interval is a percentile bootstrap over launches, each environment's
// run values resampled on their own (seeded, so a report is reproducible);
// a feature counts only when its own difference (Welch) excludes zero.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ablation_plan.h"
#include "core/statistics.h"

namespace dlcbench {

struct CaseAnalysis;

// A share and its 95% interval; NaN bounds when too few runs.
struct ShareEstimate {
  double share = 0;
  double ci95_low = 0, ci95_high = 0;
};

struct FeatureEffect {
  AblationFeature feature = AblationFeature::seccomp;
  std::string env;     // the variant's label
  std::string change;  // in words
  bool measured = false;  // false: the variant has no runs (it could not start; the notes say why)
  // env - variant, seconds per sample, with Welch's interval: what changing
  // the feature saves (negative: the variant is slower).
  DifferenceEstimate saved;
  bool significant = false;  // the interval of `saved` excludes zero
  ShareEstimate share;       // of the overhead
  // The fingerprint fields the change should show in (a variant asking for
  // the host's network shows the host's net namespace), and whether they
  // did differ from the explained environment's. Empty: no field shows it.
  std::vector<std::string> fields;
  bool fields_changed = false;
  // Full factorial only: the feature's Shapley value, its change's effect
  // averaged over every order in which the features could be changed, in
  // seconds per sample and as a share of the overhead, with paired-bootstrap
  // intervals. The features' Shapley values and the residual add up to the
  // overhead exactly.
  std::optional<DifferenceEstimate> shapley_seconds;
  ShareEstimate shapley;
};

// Full factorial only: what is left with every feature changed, against the
// baseline: the part of the overhead that no feature explains.
struct AblationResidual {
  std::string env;  // the cell with every feature changed
  DifferenceEstimate seconds;  // env - baseline per sample, paired-bootstrap interval
  bool significant = false;    // the interval excludes zero
  ShareEstimate share;         // of the overhead
};

enum class AblationOutcome {
  no_overhead,        // the explained environment is not significantly slower than the baseline
  accounted,          // the features' shares together include 100%
  none_accounted,     // no feature takes away a measurable part: it is all in what no variant changes
  partly_accounted,   // together they take away less: the rest is in what no variant changes
  over_accounted,     // together they take away more: the features interact
  too_few_runs,
};

struct CaseAblation {
  std::string of;        // the environment explained
  std::string baseline;
  bool measured = false;  // both have runs
  DifferenceEstimate overhead;  // of - baseline, seconds per sample
  bool overhead_significant = false;
  std::vector<FeatureEffect> effects;  // in the plan's order
  ShareEstimate together;              // the shares of the measured variants, summed
  AblationOutcome outcome = AblationOutcome::too_few_runs;
  std::string per = "sample";  // what a time is per: "batch", "operation", ...
  bool factorial = false;  // the plan ran every combination
  // Set when every cell of the factorial has runs in enough common rounds.
  std::optional<AblationResidual> residual;
  std::string factorial_gap;  // why a factorial plan has no Shapley shares (a cell without runs)
};

// `requested_fields`: per label, the fingerprint fields its options were
// meant to change (plan.requested_fields). Seeded bootstrap.
CaseAblation analyze_ablation(const CaseAnalysis& ca, const AblationPlan& plan, const std::string& baseline,
                              const std::map<std::string, std::vector<std::string>>& requested_fields,
                              std::size_t resamples = 2000);

// "seccomp unconfined instead of the engine's default profile takes away
// 61% of the overhead (95% CI 40% .. 83%): 12.3 ms per batch". One per
// effect, for every report.
std::string feature_effect_words(const FeatureEffect& e, const std::string& sample_noun);
// The closing sentence: accounted for, partly (with the rest), or not.
std::string ablation_outcome_words(const CaseAblation& a);

}  // namespace dlcbench
