#include "report/json_report.h"

#include <cmath>

#include <fmt/format.h>

#include "analysis/noise_floor.h"
#include "report/figures.h"
#include "report/report_model.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;

// NaN and infinities have no JSON form: null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json numbers(const std::vector<double>& xs) {
  json out = json::array();
  for (double x : xs) out.push_back(number(x));
  return out;
}

json percent(double ratio) { return number(100 * (ratio - 1)); }
// A share as percentage points: 0.021 -> 2.1.
json percent_points(double share) { return number(100 * share); }

json summary_json(const Summary& s) {
  return {{"n", s.n},
          {"mean", number(s.mean)},
          {"median", number(s.median)},
          {"stddev", number(s.stddev)},
          {"min", number(s.min)},
          {"max", number(s.max)},
          {"cv", number(s.cv)},
          {"ci95_low", number(s.ci95_low)},
          {"ci95_high", number(s.ci95_high)}};
}

// The box plot of the run values, as the HTML report draws it.
json box_json(const std::vector<double>& values, const std::vector<std::size_t>& outliers) {
  const BoxPlot b = box_plot(values, outliers);
  return {{"q1", number(b.q1)},
          {"median", number(b.median)},
          {"q3", number(b.q3)},
          {"whisker_low", number(b.whisker_low)},
          {"whisker_high", number(b.whisker_high)}};
}

json env_json(const EnvironmentStats& e) {
  json j;
  j["env"] = e.env;
  j["runs"] = summary_json(e.runs);
  j["runs_box"] = box_json(e.run_values, e.outlier_runs);
  j["batches"] = summary_json(e.batches);
  j["run_values"] = numbers(e.run_values);
  j["run_rounds"] = e.run_rounds;
  j["disturbed_runs"] = json::array();
  for (const auto& d : e.disturbed_runs) {
    json reasons = json::array();
    for (const auto& r : d.disturbance.readings)
      reasons.push_back({{"kind", disturbance_key(r.kind)}, {"share", number(r.share)}, {"limit", number(r.limit)},
                         {"over", r.share > r.limit}});
    j["disturbed_runs"].push_back({{"round", d.round}, {"run_value", number(d.value)}, {"readings", reasons},
                                   {"why", d.disturbance.why()}});
  }
  j["runs_assessed_for_disturbance"] = e.runs_assessed;
  j["disturbed_kept"] = e.disturbed_kept;
  j["outlier_runs"] = e.outlier_runs;
  j["outliers_assessed"] = e.outliers_assessed;
  j["batch_seconds"] = numbers(e.batch_seconds);
  j["warmup_seconds"] = numbers(e.warmup_seconds);
  j["warmup_count"] = e.warmup_seconds.size();
  j["warmup"] = summary_json(e.warmup);
  j["startup_seconds"] = numbers(e.startup_seconds);
  j["startup"] = summary_json(e.startup);
  j["failed_launches"] = e.failed_launches;
  j["failures"] = e.failures;
  j["fingerprint"] = e.fingerprint ? *e.fingerprint : json(nullptr);
  j["fingerprint_changes"] = e.fingerprint_changes;
  j["first_loss"] = e.first_loss ? number(*e.first_loss) : json(nullptr);
  j["last_loss"] = e.last_loss ? number(*e.last_loss) : json(nullptr);
  j["dataset"] = e.dataset.empty() ? json(nullptr) : json(e.dataset);
  j["in_container"] = e.in_container;
  return j;
}

// A micro-benchmark's run statistics in its figure: min <= max and
// ci95_low <= ci95_high in the figure's own order (for a rate, the swap of
// the seconds'); a latency also over all operations, with its p99.
json figure_json(const CaseAnalysis& c, const EnvironmentStats& e) {
  const FigureSummary f = figure_summary(c, e.runs);
  json j = {{"unit", c.figure_unit},  {"n", f.n},
            {"mean", number(f.mean)}, {"median", number(f.median)},
            {"min", number(f.min)},   {"max", number(f.max)},
            {"best", number(f.best)}, {"worst", number(f.worst)},
            {"ci95_low", number(f.ci95_low)}, {"ci95_high", number(f.ci95_high)}};
  if (!c.figure_is_rate) {
    const bool any = !e.batch_seconds.empty();
    j["operations_mean"] = any ? number(figure_of(c, e.batches.mean)) : json(nullptr);
    j["operations_p99"] = any ? number(figure_of(c, e.p99_seconds)) : json(nullptr);
  }
  return j;
}

const char* interval_name(RatioInterval kind) {
  switch (kind) {
    case RatioInterval::none: return "none";
    case RatioInterval::bounded: return "bounded";
    case RatioInterval::reaches_zero: return "reaches zero";
    case RatioInterval::unbounded: return "unbounded";
  }
  return "";
}

}  // namespace

nlohmann::json overhead_json(const Overhead& o) {
  const RatioEstimate& r = o.estimate;
  json j;
  j["env"] = o.env;
  j["ratio"] = number(r.ratio);
  j["ci95_low"] = number(r.ci95_low);
  j["ci95_high"] = number(r.ci95_high);
  j["percent"] = percent(r.ratio);
  // A percentage below -100% is no change a time can have: null where the
  // interval reaches ratios at or below zero ("interval" says so).
  j["percent_ci95_low"] = r.interval == RatioInterval::reaches_zero ? json(nullptr) : percent(r.ci95_low);
  j["interval"] = interval_name(r.interval);
  j["ci95_df"] = number(r.ci95_df);
  j["percent_ci95_high"] = percent(r.ci95_high);
  j["t"] = number(r.test.t);
  j["df"] = number(r.test.df);
  j["p_value"] = number(r.test.p_value);
  j["verdict"] = o.verdict_text;
  j["judgement"] = verdict_name(o.verdict);
  j["significant"] = is_significant(o.verdict);
  // What every format reports the comparison by: the change of the case's
  // own figure (+ is more of it; a rate's fewer per second is -).
  j["headline"] = {{"basis", headline_basis_name(o.headline.basis)},
                   // "time_added": every format says it as the time each
                   // sample adds (added_seconds); the change and the ratio
                   // of a near-zero baseline (start-up) stay secondary.
                   {"form", headline_form_name(o.headline.form)},
                   {"per", o.headline.terms.per},
                   {"unit", o.headline.terms.unit},
                   {"rate", o.headline.terms.rate},
                   {"time_ratio", number(o.headline.time_ratio)},
                   {"change_percent", number(100 * o.headline.change())},
                   {"change_percent_ci95_low", number(100 * o.headline.change_low())},
                   {"change_percent_ci95_high", number(100 * o.headline.change_high())}};
  // The verdict's estimate; the fields above are the mean's, shown beside it.
  j["robust"] = {{"estimand", o.robust.paired ? "Hodges-Lehmann ratio of run values, paired by round (Wilcoxon "
                                                "signed-rank interval)"
                                              : "Hodges-Lehmann ratio of run values, two samples (Mann-Whitney "
                                                "interval)"},
                 {"paired", o.robust.paired},
                 {"pairs", o.robust.pairs},
                  {"ratio", number(o.robust.ratio)},
                  {"ci95_low", number(o.robust.ci95_low)},
                  {"ci95_high", number(o.robust.ci95_high)},
                  {"percent", percent(o.robust.ratio)},
                  {"percent_ci95_low", percent(o.robust.ci95_low)},
                  {"percent_ci95_high", percent(o.robust.ci95_high)},
                  {"half_width_percent", percent_points(o.robust.half_width())},
                  {"exact", o.robust.exact},
                 {"mann_whitney_p_value", number(o.rank_test.p_value)}};
  j["margin_percent"] = 100 * o.margin;
  j["min_detectable_percent"] = percent_points(o.min_detectable);
  j["not_ruled_out_percent"] = percent_points(o.not_ruled_out);
  j["mean_disagrees"] = o.mean_disagrees;
  j["disturbance"] = {{"disturbed", o.disturbance.disturbed},
                      {"assessed", o.disturbance.assessed},
                      {"baseline_disturbed", o.disturbance.baseline_disturbed},
                      {"baseline_assessed", o.disturbance.baseline_assessed},
                      {"fisher_p_value", number(o.disturbance.p_value)},
                      {"higher_than_baseline", o.disturbance.higher}};
  if (o.runs_needed) j["runs_needed"] = o.runs_needed;
  j["added_seconds"] = number(o.added.difference);
  j["added_seconds_ci95_low"] = number(o.added.ci95_low);
  j["added_seconds_ci95_high"] = number(o.added.ci95_high);
  j["mann_whitney"] = {{"u", number(o.rank_test.u)}, {"p_value", number(o.rank_test.p_value)},
                       {"exact", o.rank_test.exact}};
  j["compared"] = o.compared;
  j["mismatch_allowed"] = o.mismatch_allowed;
  j["mismatches"] = json::array();
  for (const auto& m : o.mismatches) j["mismatches"].push_back(m);
  return j;
}

namespace {

const char* explanation_status_name(ExplanationStatus s) {
  switch (s) {
    case ExplanationStatus::not_significant: return "not significant";
    case ExplanationStatus::faster: return "faster";
    case ExplanationStatus::no_counters: return "no counters";
    case ExplanationStatus::explained: return "explained";
    case ExplanationStatus::unexplained: return "unexplained";
  }
  return "";
}

json difference_json(const DifferenceEstimate& d) {
  return {{"difference", number(d.difference)}, {"ci95_low", number(d.ci95_low)}, {"ci95_high", number(d.ci95_high)}};
}

json interval_json(double low, double high) { return json::array({number(low), number(high)}); }

const char* ablation_outcome_name(AblationOutcome o) {
  switch (o) {
    case AblationOutcome::no_overhead: return "no overhead";
    case AblationOutcome::accounted: return "accounted";
    case AblationOutcome::none_accounted: return "none accounted";
    case AblationOutcome::partly_accounted: return "partly accounted";
    case AblationOutcome::over_accounted: return "over-accounted";
    case AblationOutcome::too_few_runs: return "too few runs";
  }
  return "?";
}

json ablation_json(const CaseAblation& a, const std::string& per) {
  json j = {{"of", a.of},
            {"baseline", a.baseline},
            {"overhead_seconds", number(a.overhead.difference)},
            {"overhead_seconds_ci95", interval_json(a.overhead.ci95_low, a.overhead.ci95_high)},
            {"overhead_significant", a.overhead_significant},
            {"features", json::array()},
            {"together_share", number(a.together.share)},
            {"together_share_ci95", interval_json(a.together.ci95_low, a.together.ci95_high)},
            {"outcome", ablation_outcome_name(a.outcome)},
            {"outcome_text", ablation_outcome_words(a)}};
  for (const auto& e : a.effects)
    j["features"].push_back({{"feature", ablation_feature_name(e.feature)},
                             {"env", e.env},
                             {"change", e.change},
                             {"measured", e.measured},
                             {"saved_seconds", e.measured ? number(e.saved.difference) : json(nullptr)},
                             {"saved_seconds_ci95", e.measured ? interval_json(e.saved.ci95_low, e.saved.ci95_high)
                                                               : json(nullptr)},
                             {"significant", e.significant},
                             {"share", e.measured ? number(e.share.share) : json(nullptr)},
                             {"share_ci95", e.measured ? interval_json(e.share.ci95_low, e.share.ci95_high)
                                                       : json(nullptr)},
                             {"fingerprint_fields", e.fields},
                             {"fingerprint_changed", e.fields.empty() || !e.measured ? json(nullptr)
                                                                                       : json(e.fields_changed)},
                             {"shapley_seconds", e.shapley_seconds ? number(e.shapley_seconds->difference) : json(nullptr)},
                             {"shapley_seconds_ci95", e.shapley_seconds ? interval_json(e.shapley_seconds->ci95_low,
                                                                                        e.shapley_seconds->ci95_high)
                                                                        : json(nullptr)},
                             {"shapley_share", e.shapley_seconds ? number(e.shapley.share) : json(nullptr)},
                             {"shapley_share_ci95", e.shapley_seconds ? interval_json(e.shapley.ci95_low, e.shapley.ci95_high)
                                                                      : json(nullptr)},
                             {"text", feature_effect_words(e, per)}});
  j["factorial"] = a.factorial;
  j["residual"] = nullptr;
  if (a.residual)
    j["residual"] = {{"env", a.residual->env},
                     {"seconds", number(a.residual->seconds.difference)},
                     {"seconds_ci95", interval_json(a.residual->seconds.ci95_low, a.residual->seconds.ci95_high)},
                     {"significant", a.residual->significant},
                     {"share", number(a.residual->share.share)},
                     {"share_ci95", interval_json(a.residual->share.ci95_low, a.residual->share.ci95_high)}};
  return j;
}

json explanation_json(const Explanation& e, const std::string& baseline, const std::vector<LikelyCause>& likely) {
  json j;
  j["env"] = e.env;
  j["status"] = explanation_status_name(e.status);
  j["words"] = explanation_words(e, baseline);
  j["extra_ms"] = difference_json(e.extra_ms);
  j["explained_ms"] = number(e.explained_ms);
  j["unexplained_ms"] = number(e.unexplained_ms);
  j["busy_threads"] = number(e.busy_threads);
  j["compute_threads"] = e.compute_threads;
  j["throttled_percent"] = e.throttled_percent ? number(*e.throttled_percent) : json(nullptr);
  j["causes"] = json::array();
  for (const auto& c : e.causes)
    j["causes"].push_back({{"cause", cause_key(c.cause)},
                           {"ms", difference_json(c.ms)},
                           {"share", number(c.share)},
                           {"claimed", c.claimed}});
  j["likely_causes"] = json::array();
  for (const auto& c : likely)
    j["likely_causes"].push_back({{"rank", c.rank},
                                  {"field", c.mismatch.field},
                                  {"kind", difference_kind_key(c.kind)},
                                  {"fits", c.fits ? json(cause_key(*c.fits)) : json(nullptr)},
                                  {"ms", number(c.ms)},
                                  {"baseline_value", c.mismatch.baseline_value},
                                  {"other_value", c.mismatch.other_value}});
  j["counters"] = json::array();
  for (const auto& cc : e.counters) {
    json k = {{"counter", counter_key(cc.counter)}, {"unit", counter_unit(cc.counter)}};
    if (!cc.unavailable.empty()) {
      k["unavailable"] = fmt::format("{}: {}", cc.unavailable_in, cc.unavailable);
      k["runs"] = cc.runs;
      k["baseline_runs"] = cc.baseline_runs;
      k["mean"] = cc.runs ? number(cc.mean) : json(nullptr);
      k["baseline_mean"] = cc.baseline_runs ? number(cc.baseline_mean) : json(nullptr);
    } else {
      k["runs"] = cc.runs;
      k["baseline_runs"] = cc.baseline_runs;
      k["mean"] = number(cc.mean);
      k["baseline_mean"] = number(cc.baseline_mean);
      k["difference"] = difference_json(cc.difference);
      k["ratio"] = cc.ratio ? json{{"ratio", number(cc.ratio->ratio)},
                                   {"ci95_low", number(cc.ratio->ci95_low)},
                                   {"ci95_high", number(cc.ratio->ci95_high)},
                                   {"interval", interval_name(cc.ratio->interval)}}
                            : json(nullptr);
    }
    j["counters"].push_back(std::move(k));
  }
  return j;
}

// null for what the manifest does not record.
json recorded_text(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

}  // namespace

namespace {

// serve: each environment's latency quantiles per run, and their comparisons.
json latency_json(const CaseAnalysis& c) {
  json envs = json::array();
  for (const auto& e : c.envs) {
    json quantiles = json::array();
    for (std::size_t q = 0; q < e.latency_runs.size() && q < std::size(kLatencyQuantiles); ++q)
      quantiles.push_back({{"quantile", kLatencyQuantiles[q].name},
                           {"run_seconds", numbers(e.latency_runs[q])},
                           {"median_seconds", number(median(e.latency_runs[q]))}});
    envs.push_back({{"env", e.env},
                    {"path", e.serve_path},
                    {"achieved_rate", e.achieved_rate() ? number(*e.achieved_rate()) : json(nullptr)},
                    {"quantiles", quantiles}});
  }
  json comparisons = json::array();
  for (const auto& [env, list] : c.latency)
    for (const auto& q : list)
      comparisons.push_back({{"env", env}, {"quantile", q.quantile}, {"comparison", overhead_json(q.comparison)}});
  return {{"envs", envs}, {"comparisons", comparisons}};
}

// syscall/table: each environment's runs per kind of call, and each kind
// against the baseline's (the ns a call adds, with its interval).
json call_costs_json(const CaseAnalysis& c) {
  json envs = json::array();
  for (const auto& e : c.envs) {
    json kinds = json::object();
    for (const auto& [kind, runs] : e.call_ns_runs)
      kinds[kind] = {{"run_ns", numbers(runs)}, {"median_ns", number(median(runs))}};
    envs.push_back({{"env", e.env}, {"sandbox", e.sandbox.empty() ? json(nullptr) : json(e.sandbox)}, {"kinds", kinds}});
  }
  json comparisons = json::array();
  for (const auto& [env, list] : c.call_costs)
    for (const auto& k : list)
      comparisons.push_back({{"env", env},
                             {"kind", k.kind},
                             {"baseline_ns", number(k.baseline_ns)},
                             {"ns", number(k.ns)},
                             {"added_ns", number(k.added_ns())},
                             {"added_ns_ci95", {number(k.added_low()), number(k.added_high())}},
                             {"comparison", overhead_json(k.comparison)}});
  return {{"envs", envs}, {"comparisons", comparisons}};
}

// The counting launches' operation mixes per environment, and what they
// predict of each overhead.
json predictions_json(const CaseAnalysis& c) {
  json mixes = json::array();
  for (const auto& e : c.envs) {
    if (!e.operation_mix) continue;
    const OperationMix& m = *e.operation_mix;
    if (!m.unavailable.empty()) {
      mixes.push_back({{"env", e.env}, {"unavailable", m.unavailable}});
      continue;
    }
    json kinds = json::object();
    for (const auto& [kind, n] : m.by_kind) kinds[kind] = number(n);
    mixes.push_back({{"env", e.env},
                     {"method", m.method},
                     {"syscalls", number(m.syscalls)},
                     {"by_kind", kinds},
                     {"page_faults", m.page_faults ? number(*m.page_faults) : json(nullptr)},
                     {"context_switches", m.context_switches ? number(*m.context_switches) : json(nullptr)}});
  }
  json predictions = json::array();
  for (const auto& p : c.predictions) {
    json terms = json::array();
    for (const auto& t : p.terms)
      terms.push_back({{"kind", t.kind},
                       {"calls", number(t.calls)},
                       {"baseline_calls", t.baseline_calls ? number(*t.baseline_calls) : json(nullptr)},
                       {"waiting_calls", Prediction::waiting_calls(t)},
                       {"added_cpu_seconds", number(t.added_seconds)},
                       {"added_cpu_seconds_ci95", {number(t.low), number(t.high)}}});
    predictions.push_back({{"env", p.env},
                           {"mix_from", p.mix_from},
                           {"faults_counted", p.faults_counted},
                           {"faults_from_stubs", p.faults_from_stubs},
                           {"terms", terms},
                           {"cpu_seconds", number(p.cpu_seconds)},
                           {"busy_cpus", number(p.busy_cpus)},
                           {"seconds", number(p.seconds)},
                           {"seconds_ci95", {number(p.low), number(p.high)}},
                           {"measured_seconds", number(p.measured_seconds)},
                           {"measured_seconds_ci95", {number(p.measured_low), number(p.measured_high)}},
                           {"share", p.measured_significant ? number(p.share()) : json(nullptr)},
                           {"disagrees", p.disagrees()},
                           {"helpers_cpu_seconds", p.helpers_cpu ? difference_json(*p.helpers_cpu) : json(nullptr)},
                           {"worker_cpu_seconds", p.worker_cpu ? difference_json(*p.worker_cpu) : json(nullptr)}});
  }
  return {{"operation_mixes", mixes}, {"predictions", predictions}};
}

}  // namespace

json analysis_json(const Analysis& analysis, const Manifest& manifest) {
  json j;
  j["schema_version"] = kAnalysisJsonSchemaVersion;
  j["run_id"] = recorded_text(manifest.run_id);
  j["status"] = manifest.status == RunStatus::unknown ? json(nullptr) : json(run_status_text(manifest.status));
  j["baseline"] = analysis.baseline;
  j["comparable"] = analysis.comparable;
  j["allow_mismatch"] = analysis.allow_mismatch;
  j["methods"] = kReportMethods;
  j["notes"] = analysis.notes;
  if (analysis.calibration) {
    j["noise_floors"] = json::array();
    for (const auto& n : noise_floors(analysis, analysis.precision)) {
      json targets = json::array();
      for (const auto& r : n.rounds_for) targets.push_back({{"precision_percent", 100 * r.precision}, {"rounds", r.rounds}});
      j["noise_floors"].push_back({{"case", n.case_id},
                                   {"env", n.env},
                                   {"rounds", n.rounds},
                                   {"run_cv", number(n.run_cv)},
                                   {"percent", percent(n.difference.ratio)},
                                   {"percent_ci95_low", percent(n.difference.ci95_low)},
                                   {"percent_ci95_high", percent(n.difference.ci95_high)},
                                   {"half_width_percent", percent_points(n.half_width)},
                                   {"rounds_for", targets},
                                   {"disturbed", n.disturbed},
                                   {"assessed", n.assessed}});
    }
  }
  j["cases"] = json::array();
  for (const auto& c : analysis.cases) {
    json cj;
    cj["case"] = c.case_id;
    cj["unit"] = c.unit;
    cj["workload"] = c.workload.empty() ? json(nullptr) : json(c.workload);
    cj["startup"] = c.startup;
    cj["micro"] = c.micro;
    cj["run_statistic"] = c.run_statistic;
    // Micro-benchmarks: the figure people quote, and the work of one
    // operation it is computed from (flops or bytes).
    cj["figure_unit"] = c.micro ? json(c.figure_unit) : json(nullptr);
    cj["figure_is_rate"] = c.micro ? json(c.figure_is_rate) : json(nullptr);
    cj["work"] = c.micro ? number(c.work) : json(nullptr);
    cj["envs"] = json::array();
    for (const auto& e : c.envs) {
      json ej = env_json(e);
      if (c.micro) {
        ej["figure"] = figure_json(c, e);
        std::vector<double> figures;
        for (double v : e.run_values) figures.push_back(figure_of(c, v));
        ej["figure"]["box"] = box_json(figures, e.outlier_runs);
        ej["p99_seconds"] = e.batch_seconds.empty() ? json(nullptr) : number(e.p99_seconds);
        ej["fs_type"] = e.fs_type.empty() ? json(nullptr) : json(e.fs_type);
        ej["estimated_limit"] = e.estimated_limit ? number(*e.estimated_limit) : json(nullptr);
        ej["fraction_of_limit"] = number(fraction_of_limit(c, e));
        ej["data_wait_share"] = e.data_wait_share ? number(*e.data_wait_share) : json(nullptr);
      }
      cj["envs"].push_back(std::move(ej));
    }
    cj["overheads"] = json::array();
    for (const auto& o : c.overheads) cj["overheads"].push_back(overhead_json(o));
    // Why: the counters per batch against the baseline's, and the causes of
    // a significant overhead (analysis/explanation.h).
    cj["explanations"] = json::array();
    for (const auto& e : c.explanations) {
      const auto likely = c.likely_causes.find(e.env);
      cj["explanations"].push_back(explanation_json(
          e, analysis.baseline, likely == c.likely_causes.end() ? std::vector<LikelyCause>{} : likely->second));
    }
    if (c.serves()) cj["latency"] = latency_json(c);
    if (!c.call_costs.empty()) cj["call_costs"] = call_costs_json(c);
    if (std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return e.operation_mix.has_value(); }))
      cj["system_calls"] = predictions_json(c);
    // `dlcbench explain`: each ablated feature's share of the overhead.
    if (c.ablation)
      cj["ablation"] = ablation_json(*c.ablation, c.startup ? "start" : c.micro ? "operation" : "batch");
    j["cases"].push_back(std::move(cj));
  }
  return j;
}

}  // namespace dlcbench
