#include "analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/launch_fold.h"
#include "analysis/prediction.h"
#include "model/run_records.h"
#include "core/errors.h"
#include "core/words.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/micro/syscall_cost.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

EnvironmentStats* find_env(CaseAnalysis& c, const std::string& env) {
  for (auto& e : c.envs)
    if (e.env == env) return &e;
  return nullptr;
}

CaseAnalysis* find_case(Analysis& a, const std::string& id) {
  for (auto& c : a.cases)
    if (c.case_id == id) return &c;
  return nullptr;
}

}  // namespace

const EnvironmentStats* find_environment(const CaseAnalysis& c, const std::string& env) {
  for (const auto& e : c.envs)
    if (e.env == env) return &e;
  return nullptr;
}

namespace {

// What runs an environment's system calls when it is not the host's kernel,
// from the manifest's description of it: gVisor (runsc, or an engine's runsc
// runtime), with its build and platform where the command line says it.
std::string sandbox_of(const nlohmann::json& environment) {
  const auto text = [&](const char* key) {
    const auto it = environment.find(key);
    return it != environment.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string platform;
  if (const auto command = environment.find("command"); command != environment.end() && command->is_array())
    for (const auto& word : *command)
      if (word.is_string() && word.get<std::string>().rfind("--platform=", 0) == 0)
        platform = word.get<std::string>().substr(std::string("--platform=").size());
  const auto runtime = environment.find("runtime");
  const bool engine_runsc = runtime != environment.end() && runtime->is_object() &&
                            runtime->value("name", "") == "runsc";
  const std::string program = text("program");
  if (!engine_runsc && (program.size() < 5 || program.compare(program.size() - 5, 5, "runsc") != 0)) return "";
  std::string label = "gVisor";
  if (const std::string version = text("version"); !version.empty() && !engine_runsc) label += ", " + version;
  label += platform.empty() ? (engine_runsc ? ", the engine's runsc runtime" : "") : ", " + platform + " platform";
  return label;
}

std::vector<double> seconds_of_ns(const std::vector<double>& ns) {
  std::vector<double> out;
  for (double x : ns) out.push_back(x * 1e-9);
  return out;
}

// Pass 1: the cases the plan lists, each with an empty entry per environment
// in the plan's order, and what kind of figure each reports.
std::vector<CaseAnalysis> planned_cases(const RecordedPlan& plan) {
  std::vector<CaseAnalysis> cases;
  for (const auto& planned : plan.cases) {
    CaseAnalysis ca;
    ca.case_id = planned.id;
    ca.workload = planned.workload;
    ca.spec = planned.spec;
    ca.run_statistic = run_statistic(planned.spec);
    if (ca.workload == kStartupWorkload) {
      ca.startup = true;
      ca.unit = "s/start";
    } else if (planned.spec.is_command()) {
      const MetricSpec& metric = planned.spec.command.metric;
      ca.command = true;
      ca.unit = metric.source == MetricSpec::Source::wall_time ? "s/launch" : metric.unit;
      if (metric.higher_is_better) {
        ca.micro = true;  // shown in its figure: the rate, from seconds per unit
        ca.unit = "s/unit";
        ca.figure_unit = metric.unit;
        ca.figure_is_rate = true;
        ca.work = 1;
      }
    } else if (const MicroWorkloadInfo* micro = find_micro_workload(ca.workload)) {
      ca.micro = true;
      ca.unit = "s/op";
      ca.figure_unit = micro->unit(planned.spec.variant);
      ca.figure_is_rate = micro->rate;
      ca.figure_scale = micro->figure_scale;
      ca.figure_per = micro->figure_per;
    }
    for (const auto& e : plan.environments) {
      EnvironmentStats stats;
      stats.env = e;
      ca.envs.push_back(std::move(stats));
    }
    cases.push_back(std::move(ca));
  }
  return cases;
}

// One successful launch on its way into its environment's statistics.
struct CollectedRun {
  int round = 0;
  double value = 0;
  std::optional<LaunchCounters> counters;
  const LaunchSamples* samples = nullptr;
  RunDisturbance disturbance;
};

void add_run(EnvironmentStats& es, const CollectedRun& run) {
  es.run_values.push_back(run.value);
  es.run_rounds.push_back(run.round);
  if (run.counters) es.run_counters.push_back(*run.counters);
  if (run.samples->startup_seconds) es.startup_seconds.push_back(*run.samples->startup_seconds);
  es.batch_seconds.insert(es.batch_seconds.end(), run.samples->measured.begin(), run.samples->measured.end());
  if (!run.samples->serve_path.empty()) {
    es.latency_runs.resize(std::size(kLatencyQuantiles));
    for (std::size_t q = 0; q < std::size(kLatencyQuantiles); ++q)
      es.latency_runs[q].push_back(percentile(run.samples->measured, kLatencyQuantiles[q].q));
    es.serve_path = run.samples->serve_path;
    if (run.samples->achieved_rate) es.achieved_rates.push_back(*run.samples->achieved_rate);
  }
  for (const auto& [kind, ns] : run.samples->call_ns) es.call_ns_runs[kind].push_back(median(ns));
  if (run.samples->data_wait_seconds)
    es.data_wait_seconds = es.data_wait_seconds.value_or(0) + *run.samples->data_wait_seconds;
  if (!es.first_loss && !run.samples->losses.empty()) {
    es.first_loss = run.samples->losses.front();
    es.last_loss = run.samples->losses.back();
  }
}

// Pass 3: each finished launch's run value (the mean of its batches, or its
// case's statistic) with its round, and its samples; each failed one counted
// with its cause; the disturbed ones set aside while enough are left.
void collect_runs(Analysis& a, const FoldedLaunches& folded, int planned_runs) {
  std::map<std::pair<CaseAnalysis*, EnvironmentStats*>, std::vector<CollectedRun>> runs;
  for (const auto& [key, f] : folded.finished) {
    CaseAnalysis* ca = find_case(a, std::get<0>(key));
    EnvironmentStats* es = find_env(*ca, std::get<1>(key));
    const LaunchSamples& p = f.samples;
    es->warmup_seconds.insert(es->warmup_seconds.end(), p.warmups.begin(), p.warmups.end());
    if (!f.ok) {
      ++es->failed_launches;
      es->failures.push_back(fmt::format("round {}: {}", std::get<2>(key), f.cause));
      continue;
    }
    CollectedRun run{std::get<2>(key), run_value(ca->run_statistic, p.measured),
                     std::nullopt, &p,
                     assess_disturbance(p.accounting)};
    if (p.accounting) {
      try {
        run.counters = read_launch_counters(*p.accounting, mean(p.measured));
      } catch (const DataError& e) {
        a.notes.push_back(fmt::format("{} in {}, round {}: its accounting record is left out: {}", std::get<0>(key),
                                      std::get<1>(key), std::get<2>(key), e.what()));
      }
    }
    runs[{ca, es}].push_back(std::move(run));
  }
  for (auto& [where, collected] : runs) {
    EnvironmentStats& es = *where.second;
    std::size_t undisturbed = 0;
    for (const auto& run : collected) {
      es.runs_assessed += run.disturbance.assessed;
      undisturbed += !run.disturbance.disturbed();
    }
    es.disturbed_kept = keep_disturbed_runs(undisturbed, collected.size(), planned_runs);
    for (const auto& run : collected) {
      if (run.disturbance.disturbed()) es.disturbed_runs.push_back({run.round, run.value, run.disturbance});
      if (es.disturbed_kept || !run.disturbance.disturbed()) add_run(es, run);
    }
  }
  // Warm-ups of an unfinished launch are still reported (as before resume existed).
  for (const auto& [key, p] : folded.unfinished)
    if (EnvironmentStats* es = find_env(*find_case(a, std::get<0>(key)), std::get<1>(key)))
      es->warmup_seconds.insert(es->warmup_seconds.end(), p.warmups.begin(), p.warmups.end());
}

// What the reader of the figures must know of the records: launches lost
// after the run, records left out, launches that never finished.
void note_records(Analysis& a, const FoldedLaunches& folded) {
  if (a.results_lost())
    a.notes.push_back(fmt::format("the manifest records {}; results.jsonl holds {}: {} after the run "
                                  "(truncated, replaced or edited), so the figures cover only what is left",
                                  counted(static_cast<std::size_t>(*a.launches_recorded), "launch", "launches"),
                                  a.launches_found,
                                  a.launches_found == 0 ? "everything it measured was lost"
                                                        : "part of what it measured was lost"));
  if (folded.malformed)
    a.notes.push_back(fmt::format("results.jsonl holds {} record(s) with a field missing or of the wrong type "
                                  "(first at {}); they are left out",
                                  folded.malformed, folded.first_malformed));
  if (folded.unknown)
    a.notes.push_back(fmt::format("results.jsonl holds {} sample(s) of cases or environments the manifest's plan "
                                  "does not list (first at {}); they are left out",
                                  folded.unknown, folded.first_unknown));
  for (const auto& [key, refused] : folded.refused)
    a.notes.push_back(fmt::format("{} in {}: --metric captured {} that {} no positive number ({}): a time or a rate "
                                  "is above zero, so {} left out",
                                  key.first, key.second, counted(refused.count, "value", "values"),
                                  refused.count == 1 ? "is" : "are", fmt::join(refused.values, ", "),
                                  refused.count == 1 ? "it was" : "they were"));
  for (const auto& [key, left] : folded.leftovers) {
    std::vector<std::string> names;
    for (const auto& [name, count] : left.names) names.push_back(count > 1 ? fmt::format("{} x{}", name, count) : name);
    a.notes.push_back(fmt::format("{} in {}: in {} the command left processes running when it exited ({}); "
                                  "dlcbench-probe ended them then ({}), so each figure is the command's own run "
                                  "and nothing outlives it",
                                  key.first, key.second, counted(left.launches, "launch", "launches"),
                                  fmt::join(names, ", "), left.killed ? "SIGTERM, then SIGKILL" : "SIGTERM"));
  }
  for (const auto& [key, p] : folded.unfinished)
    if (!p.measured.empty())
      a.notes.push_back(fmt::format("{} in {}, round {}: {} of a launch that did not finish "
                                    "(interrupted); kept in results.jsonl, left out of the statistics",
                                    std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                    counted(p.measured.size(), "sample", "samples")));
}

}  // namespace

void summarize_environments(CaseAnalysis& ca, std::vector<std::string>& notes) {
  for (auto& es : ca.envs) {
    es.runs = summarize(es.run_values);
    es.batches = summarize(es.batch_seconds);
    es.warmup = summarize(es.warmup_seconds);
    es.startup = summarize(es.startup_seconds);
    es.outlier_runs = outlier_indices(es.run_values);
    es.outliers_assessed = es.run_values.size() >= kMinOutlierSample;
    es.p99_seconds = percentile(es.batch_seconds, 0.99);
    const double measured = std::accumulate(es.batch_seconds.begin(), es.batch_seconds.end(), 0.0);
    if (es.data_wait_seconds && measured > 0) es.data_wait_share = *es.data_wait_seconds / measured;
  }
  if (!ca.micro) return;
  // Every environment did the same work per operation, or the figures
  // would not compare.
  std::set<double> works;
  for (const auto& es : ca.envs)
    if (!es.run_values.empty()) works.insert(es.work);
  if (!works.empty()) ca.work = *works.begin();
  if (works.size() > 1)
    notes.push_back(fmt::format("{}: the work of one operation differs between environments ({}); its figures use "
                                "the first",
                                ca.case_id, fmt::join(works, ", ")));
}

std::vector<Mismatch> comparison_mismatches(const CaseAnalysis& ca, const EnvironmentStats& base,
                                            const EnvironmentStats& es, const std::vector<std::string>& requested) {
  std::vector<Mismatch> mismatches;
  // A user's image differs from the host by design: every difference is a possible cause.
  if (base.fingerprint && es.fingerprint)
    mismatches = ca.command ? compare_command_fingerprints(*base.fingerprint, *es.fingerprint, requested)
                            : compare_fingerprints(*base.fingerprint, *es.fingerprint, requested);
  const std::string drift_fix = "something changed the environment during the run (an upgrade, another "
                                "process pinning CPUs); run again on a quiet machine";
  // Seconds per operation compare only for the same operation.
  if (ca.micro && es.work != base.work)
    mismatches.push_back({"work of one operation", fmt::format("{:g}", base.work), fmt::format("{:g}", es.work), false,
                          true,
                          "the benchmark sized its operation in each launch (gpu-gemm does on a GPU its peak "
                          "table does not know) and the sizes differ, so the times per operation do not "
                          "compare; each sample's work is in results.jsonl"});
  for (const auto& change : es.fingerprint_changes)
    mismatches.push_back({es.env + " changed between rounds, " + change, "", "", false, true, drift_fix});
  for (const auto& change : base.fingerprint_changes)
    mismatches.push_back({base.env + " changed between rounds, " + change, "", "", false, true, drift_fix});
  return mismatches;
}

namespace {

// The back end's compute threads, from the fingerprint; 0 when unknown.
int compute_threads(const EnvironmentStats& es) {
  if (!es.fingerprint) return 0;
  for (const char* pointer : {"/backend/threads/requested", "/backend/threads/intra_op", "/blas/threads"}) {
    const nlohmann::json::json_pointer p(pointer);
    if (es.fingerprint->contains(p) && es.fingerprint->at(p).is_number_integer())
      return std::max(0, es.fingerprint->at(p).get<int>());
  }
  return 0;
}

// The CPUs the environment's worker may use, from the fingerprint; 0 when unknown.
int affinity_cpus(const EnvironmentStats& es) {
  const nlohmann::json::json_pointer p("/cpu/affinity_count");
  if (!es.fingerprint || !es.fingerprint->contains(p) || !es.fingerprint->at(p).is_number_integer()) return 0;
  return std::max(0, es.fingerprint->at(p).get<int>());
}

}  // namespace

FigureTerms figure_terms(const CaseAnalysis& c) {
  const std::string unit = c.figure_unit.empty() ? c.unit : c.figure_unit;
  // A time per sample names its sample ("s/batch", "s/step"); other figures
  // are over seconds per operation.
  const std::string per = c.startup                ? "start"
                          : unit.starts_with("s/") ? unit.substr(2)
                          : c.micro                ? "operation"
                                                   : "sample";
  FigureTerms terms;
  terms.rate = c.figure_is_rate;
  terms.unit = unit;
  terms.per = per;
  terms.time_added = c.startup;
  // A time figure of its own (syscall's ns per call, io-lat's ms): the time
  // added is said in it, per what it is per.
  if (c.micro && !c.figure_is_rate && (unit == "ns" || unit == "us" || unit == "ms")) {
    terms.added_unit = unit;
    terms.added_scale = c.figure_scale;
    if (c.figure_per != "operation") terms.added_per_what = c.figure_per;
  }
  return terms;
}

void compare_with_baseline(CaseAnalysis& ca, Analysis& a, const RequestedFields& requested_fields) {
  const EnvironmentStats* base = find_environment(ca, a.baseline);
  if (!base || base->run_values.empty()) return;
  auto requested_by = [&](const std::string& env) {
    const auto it = requested_fields.find(env);
    return it == requested_fields.end() ? std::vector<std::string>{} : it->second;
  };
  for (const auto& es : ca.envs) {
    if (es.env == a.baseline || es.run_values.empty()) continue;
    Overhead o = compare_figures(es.env, {es.run_values, es.run_rounds}, {base->run_values, base->run_rounds},
                                 ComparisonWording::overhead, a.margin, figure_terms(ca));
    std::vector<std::string> requested = requested_by(es.env);
    for (const auto& f : requested_by(a.baseline)) requested.push_back(f);
    o.mismatches = comparison_mismatches(ca, *base, es, requested);
    DisturbanceRates& d = o.disturbance;
    d.disturbed = es.disturbed_runs.size();
    d.assessed = es.runs_assessed;
    d.baseline_disturbed = base->disturbed_runs.size();
    d.baseline_assessed = base->runs_assessed;
    d.p_value = fisher_exact_p(d.disturbed, d.assessed, d.baseline_disturbed, d.baseline_assessed);
    d.higher = d.p_value < 0.05 && d.disturbed * d.baseline_assessed > d.baseline_disturbed * d.assessed;
    if (stops_comparison(o.mismatches)) {
      if (a.allow_mismatch) o.mismatch_allowed = true;
      else o.compared = false, a.comparable = false;
    }
    if (!es.run_counters.empty() || !base->run_counters.empty())
    {
      ca.explanations.push_back(explain_overhead(o, es.run_counters, base->run_counters, compute_threads(es), affinity_cpus(es)));
      if (auto ranked = rank_likely_causes(o.mismatches, ca.explanations.back()); !ranked.empty())
        ca.likely_causes[o.env] = std::move(ranked);
    }
    if (ca.serves() && es.latency_runs.size() == std::size(kLatencyQuantiles) &&
        base->latency_runs.size() == es.latency_runs.size())
      for (std::size_t q = 0; q < es.latency_runs.size(); ++q)
        ca.latency[es.env].push_back(
            {kLatencyQuantiles[q].name,
             compare_figures(es.env, {es.latency_runs[q], es.run_rounds}, {base->latency_runs[q], base->run_rounds},
                             ComparisonWording::overhead, a.margin, figure_terms(ca))});
    for (const auto& kind : syscall_kinds()) {
      const auto own_runs = es.call_ns_runs.find(kind), base_runs = base->call_ns_runs.find(kind);
      if (own_runs == es.call_ns_runs.end() || base_runs == base->call_ns_runs.end()) continue;
      const auto& runs = own_runs->second;
      if (runs.size() != es.run_values.size() ||
          base_runs->second.size() != base->run_values.size())
        continue;
      // Compared in seconds per call, so that the comparison's times added are seconds as everywhere.
      const std::vector<double> own = seconds_of_ns(runs), theirs = seconds_of_ns(base_runs->second);
      ca.call_costs[es.env].push_back({kind, median(base_runs->second), median(runs),
                                       compare_figures(es.env, {own, es.run_rounds}, {theirs, base->run_rounds},
                                                       ComparisonWording::overhead, a.margin, figure_terms(ca))});
    }
    ca.overheads.push_back(std::move(o));
  }
}

Analysis analyze(const Manifest& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers) {
  if (!manifest.plan) throw DataError("manifest.json has no plan: it is not a dlcbench results folder's manifest");
  const RecordedPlan& plan = *manifest.plan;
  Analysis a;
  a.status = manifest.status;
  if (manifest.launches)
    a.launches_recorded = static_cast<int>(std::min<std::size_t>(*manifest.launches, std::numeric_limits<int>::max()));
  if (a.status == RunStatus::interrupted)
    a.notes.push_back("the run was interrupted: the figures cover what was measured before it stopped");
  else if (a.status == RunStatus::running)
    a.notes.push_back("the run did not finish (its manifest still says running: the orchestrator was killed, or "
                      "it is still running): the figures cover what was measured so far");
  a.baseline = plan.baseline;
  a.allow_mismatch = plan.allow_mismatch;
  a.margin = plan.margin;
  a.calibration = plan.calibration;
  a.precision = plan.precision;
  a.cases = planned_cases(plan);
  for (auto& ca : a.cases)
    for (auto& es : ca.envs)
      if (const auto described = manifest.environments.find(es.env); described != manifest.environments.end())
        es.sandbox = sandbox_of(described->second);
  const FoldedLaunches folded = fold_launches(a, records, line_numbers);
  a.launches_found = folded.launch_records;
  collect_runs(a, folded, plan.runs.value_or(0));
  note_records(a, folded);
  a.ablation = plan.ablation;
  for (auto& ca : a.cases) {
    summarize_environments(ca, a.notes);
    compare_with_baseline(ca, a, plan.requested_fields);
    if (plan.ablation) ca.ablation = analyze_ablation(ca, *plan.ablation, plan.baseline, plan.requested_fields);
  }
  predict_overheads(a);
  return a;
}

Analysis analyze(const nlohmann::json& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers) {
  return analyze(manifest.get<Manifest>(), records, line_numbers);
}

}  // namespace dlcbench
