#include "analysis/analysis.h"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/run_records.h"
#include "core/words.h"
#include "core/errors.h"
#include "runtimes/container_options.h"
#include "runtimes/environment.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

constexpr double kAlpha = 0.05;

EnvironmentStats* find_env(CaseAnalysis& c, const std::string& env) {
  for (auto& e : c.envs)
    if (e.env == env) return &e;
  return nullptr;
}

}  // namespace

const EnvironmentStats* find_environment(const CaseAnalysis& c, const std::string& env) {
  for (const auto& e : c.envs)
    if (e.env == env) return &e;
  return nullptr;
}

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

Analysis analyze(const nlohmann::json& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers) {
  Analysis a;
  const ManifestPlan plan = read_manifest_plan(manifest);
  if (plan.schema_version > kManifestSchemaVersion)
    throw std::runtime_error(fmt::format("manifest.json has format version {}, newer than this dlcbench reads ({}): "
                                         "report it with the dlcbench that wrote it, or update dlcbench",
                                         plan.schema_version, kManifestSchemaVersion));
  a.status = plan.status;
  a.launches_recorded = plan.launches;
  if (a.status == "interrupted")
    a.notes.push_back("the run was interrupted: the figures cover what was measured before it stopped");
  else if (a.status == "running")
    a.notes.push_back("the run did not finish (its manifest still says running: the orchestrator was killed, or "
                      "it is still running): the figures cover what was measured so far");
  a.baseline = plan.baseline;
  const std::vector<std::string>& env_order = plan.environments;
  a.allow_mismatch = plan.allow_mismatch;
  // Fingerprint fields each environment's options are meant to change.
  std::map<std::string, std::vector<std::string>> requested_fields;
  for (const auto& e : env_order) {
    try {
      requested_fields[e] = fields_changed_by(parse_environment_request(e).options);
    } catch (const std::exception&) {
      // A label this version no longer parses: nothing counts as asked for.
    }
  }
  for (const auto& planned : plan.cases) {
    CaseAnalysis ca;
    ca.case_id = planned.id;
    ca.workload = planned.workload;
    const CaseSpec& spec = planned.spec;
    ca.spec = spec;
    ca.run_statistic = run_statistic(spec);
    if (ca.workload == kStartupWorkload) {
      ca.startup = true;
      ca.unit = "s/start";
    } else if (const MicroWorkloadInfo* micro = find_micro_workload(ca.workload)) {
      ca.micro = true;
      ca.unit = "s/op";
      ca.figure_unit = micro->unit(spec.variant);
      ca.figure_is_rate = micro->rate;
      ca.figure_scale = micro->figure_scale;
    }
    for (const auto& e : env_order) {
      EnvironmentStats stats;
      stats.env = e;
      ca.envs.push_back(std::move(stats));
    }
    a.cases.push_back(std::move(ca));
  }
  auto find_case = [&](const std::string& id) -> CaseAnalysis* {
    for (auto& c : a.cases)
      if (c.case_id == id) return &c;
    return nullptr;
  };

  // Samples of one launch are kept apart until the launch is known to have
  // finished, so a launch cut short contributes no run mean.
  struct Pending {
    std::vector<double> measured;
    std::vector<double> warmups;
    std::vector<double> losses;
  };
  using LaunchId = std::tuple<std::string, std::string, int>;  // case, env, round
  std::map<LaunchId, Pending> pending;
  // Finished launches by (case, env, round), so run values stay in round
  // order even when `run --resume` measured some rounds after later ones.
  struct Finished {
    Pending samples;
    bool ok = false;
    std::string cause;
  };
  std::map<LaunchId, Finished> finished;

  std::size_t unknown = 0, malformed = 0;
  std::string first_unknown, first_malformed;
  for (std::size_t index = 0; index < records.size(); ++index) {
    const std::size_t line = index < line_numbers.size() ? line_numbers[index] : index + 1;
    ResultRecord r;
    try {
      r = read_result_record(records[index]);
    } catch (const DataError& e) {
      if (malformed++ == 0) first_malformed = fmt::format("line {}: {}", line, e.what());
      continue;
    }
    const std::string& type = r.type;
    if (type == "launch") ++a.launches_found;
    if (type == "resume") {
      // `run --resume` starts here: launches still unfinished were cut off by
      // the end of the earlier session and are measured again after this
      // line, so their samples must not join the new launch's.
      for (const auto& [key, p] : pending)
        if (!p.measured.empty() || !p.warmups.empty())
          a.notes.push_back(fmt::format("{} in {}, round {}: {} of a launch cut off before the run was "
                                        "resumed; kept in results.jsonl, left out of the statistics",
                                        std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                        counted(p.measured.size() + p.warmups.size(), "sample", "samples")));
      pending.clear();
      continue;
    }
    if (type == "environment_unavailable" || type == "environment_dropped") {
      a.notes.push_back(fmt::format("{}: {}", r.env.value_or("?"), r.reason));
      continue;
    }
    if (!r.case_id || !r.env) continue;
    CaseAnalysis* ca = find_case(*r.case_id);
    EnvironmentStats* es = ca ? find_env(*ca, *r.env) : nullptr;
    if (!es) {
      if (type == "sample" && unknown++ == 0)
        first_unknown = fmt::format("line {}: case {} in {}", line, *r.case_id, *r.env);
      continue;
    }
    const auto key = std::make_tuple(ca->case_id, es->env, r.round);

    if (type == "fingerprint") {
      const nlohmann::json& fingerprint = records[index];
      if (!es->fingerprint) {
        es->fingerprint = fingerprint;
        es->dataset = r.dataset;
        es->in_container = r.in_container;
        es->fs_type = r.fs_type;
        es->estimated_peak_gflops = r.estimated_peak_gflops;
      } else {
        for (const auto& m : compare_fingerprints(*es->fingerprint, fingerprint))
          es->fingerprint_changes.push_back(fmt::format("round {}: {} {} -> {}", r.round, m.field,
                                                        m.baseline_value, m.other_value));
      }
    } else if (type == "sample") {
      if (r.phase == "warmup") {
        pending[key].warmups.push_back(r.seconds);
      } else {
        pending[key].measured.push_back(r.seconds);
        if (r.work) es->work = *r.work;
        if (r.loss) pending[key].losses.push_back(*r.loss);
      }
    } else if (type == "launch") {
      Finished f{std::move(pending[key]), false, r.cause};
      pending.erase(key);
      f.ok = r.ok && !f.samples.measured.empty();
      auto earlier = finished.find(key);
      if (earlier == finished.end()) {
        finished.emplace(key, std::move(f));
      } else if (!earlier->second.ok) {
        // A failed launch measured again by `run --resume`: the new one counts.
        a.notes.push_back(fmt::format("{} in {}, round {} failed ({}) and was measured again when the run was resumed",
                                      ca->case_id, es->env, r.round, earlier->second.cause));
        earlier->second = std::move(f);
      } else {
        a.notes.push_back(fmt::format("{} in {}, round {}: a second launch record (line {}) left out; the first "
                                      "successful one counts",
                                      ca->case_id, es->env, r.round, line));
      }
    }
  }
  for (auto& [key, f] : finished) {
    CaseAnalysis* ca = find_case(std::get<0>(key));
    EnvironmentStats* es = find_env(*ca, std::get<1>(key));
    const Pending& p = f.samples;
    es->warmup_seconds.insert(es->warmup_seconds.end(), p.warmups.begin(), p.warmups.end());
    if (f.ok) {
      es->run_values.push_back(run_value(ca->run_statistic, p.measured));
      es->batch_seconds.insert(es->batch_seconds.end(), p.measured.begin(), p.measured.end());
      if (!es->first_loss && !p.losses.empty()) {
        es->first_loss = p.losses.front();
        es->last_loss = p.losses.back();
      }
    } else {
      ++es->failed_launches;
      es->failures.push_back(fmt::format("round {}: {}", std::get<2>(key), f.cause));
    }
  }
  if (a.results_lost())
    a.notes.push_back(fmt::format("the manifest records {}; results.jsonl holds {}: {} after the run "
                                  "(truncated, replaced or edited), so the figures cover only what is left",
                                  counted(static_cast<std::size_t>(*a.launches_recorded), "launch", "launches"),
                                  a.launches_found,
                                  a.launches_found == 0 ? "everything it measured was lost"
                                                        : "part of what it measured was lost"));
  if (malformed)
    a.notes.push_back(fmt::format("results.jsonl holds {} record(s) with a field missing or of the wrong type "
                                  "(first at {}); they are left out",
                                  malformed, first_malformed));
  if (unknown)
    a.notes.push_back(fmt::format("results.jsonl holds {} sample(s) of cases or environments the manifest's plan "
                                  "does not list (first at {}); they are left out",
                                  unknown, first_unknown));
  for (const auto& [key, p] : pending) {
    // Warm-ups of an unfinished launch are still reported (as before resume existed).
    if (EnvironmentStats* es = find_env(*find_case(std::get<0>(key)), std::get<1>(key)))
      es->warmup_seconds.insert(es->warmup_seconds.end(), p.warmups.begin(), p.warmups.end());
    if (!p.measured.empty())
      a.notes.push_back(fmt::format("{} in {}, round {}: {} of a launch that did not finish "
                                    "(interrupted); kept in results.jsonl, left out of the statistics",
                                    std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                    counted(p.measured.size(), "sample", "samples")));
  }

  for (auto& ca : a.cases) {
    for (auto& es : ca.envs) {
      es.runs = summarize(es.run_values);
      es.batches = summarize(es.batch_seconds);
      es.warmup = summarize(es.warmup_seconds);
      es.outlier_runs = outlier_indices(es.run_values);
      es.outliers_assessed = es.run_values.size() >= kMinOutlierSample;
      es.p99_seconds = percentile(es.batch_seconds, 0.99);
    }
    if (ca.micro) {
      // Every environment did the same work per operation, or the figures
      // would not compare.
      std::set<double> works;
      for (const auto& es : ca.envs)
        if (!es.run_values.empty()) works.insert(es.work);
      if (!works.empty()) ca.work = *works.begin();
      if (works.size() > 1)
        a.notes.push_back(fmt::format("{}: the work of one operation differs between environments ({}); its "
                                      "figures use the first", ca.case_id, fmt::join(works, ", ")));
    }
    const EnvironmentStats* base = find_env(ca, a.baseline);
    if (!base || base->run_values.empty()) continue;
    for (const auto& es : ca.envs) {
      if (es.env == a.baseline || es.run_values.empty()) continue;
      Overhead o = compare_run_values(es.env, es.run_values, base->run_values, ComparisonWording::overhead);
      std::vector<std::string> requested = requested_fields[es.env];
      for (const auto& f : requested_fields[a.baseline]) requested.push_back(f);
      if (base->fingerprint && es.fingerprint)
        o.mismatches = compare_fingerprints(*base->fingerprint, *es.fingerprint, requested);
      const std::string drift_fix = "something changed the environment during the run (an upgrade, another "
                                    "process pinning CPUs); run again on a quiet machine";
      // Seconds per operation compare only for the same operation.
      if (ca.micro && es.work != base->work)
        o.mismatches.push_back({"work of one operation", fmt::format("{:g}", base->work), fmt::format("{:g}", es.work),
                                false, true,
                                "the benchmark sized its operation in each launch (gpu-gemm does on a GPU its peak "
                                "table does not know) and the sizes differ, so the times per operation do not "
                                "compare; each sample's work is in results.jsonl"});
      for (const auto& change : es.fingerprint_changes)
        o.mismatches.push_back({es.env + " changed between rounds, " + change, "", "", false, true, drift_fix});
      for (const auto& change : base->fingerprint_changes)
        o.mismatches.push_back({a.baseline + " changed between rounds, " + change, "", "", false, true, drift_fix});
      if (stops_comparison(o.mismatches)) {
        if (a.allow_mismatch) o.mismatch_allowed = true;
        else o.compared = false, a.comparable = false;
      }
      ca.overheads.push_back(std::move(o));
    }
  }
  return a;
}

}  // namespace dlcbench
