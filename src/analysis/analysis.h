// Turns manifest.json and results.jsonl into per-case statistics and
// overheads. Reports are computed from this and nothing else, so every
// figure can be recomputed from the two files.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/ablation_shares.h"
#include "analysis/comparability.h"
#include "analysis/disturbance.h"
#include "analysis/explanation.h"
#include "analysis/likely_causes.h"
#include "analysis/overhead.h"
#include "model/manifest.h"
#include "model/run_records.h"
#include "core/case_spec.h"
#include "core/statistics.h"

namespace dlcbench {

struct EnvironmentStats {
  std::string env;
  // The statistical unit is one launch of the worker (one round): its mean
  // seconds per batch (for the startup workload, the median of its starts).
  // Batches within one process are not independent, so confidence intervals
  // are taken over launches, as hyperfine does over runs.
  std::vector<double> run_values;
  // Parallel to run_values: the round of each, which pairs it with the
  // baseline's run of the same round (analysis/overhead.h: robust_ratio).
  std::vector<int> run_rounds;
  // Runs disturbed from outside (analysis/disturbance.h): kept in
  // results.jsonl and listed in every report, left out of the statistics.
  struct DisturbedRun {
    int round = 0;
    double value = 0;  // its run value
    RunDisturbance disturbance;
  };
  std::vector<DisturbedRun> disturbed_runs;
  std::size_t runs_assessed = 0;  // successful runs whose disturbance could be judged
  // Setting the disturbed runs aside would leave fewer undisturbed runs
  // than --runs (no replacement round made them good), fewer than half, or
  // fewer than two: they stay in the statistics and the reports say so.
  bool disturbed_kept = false;
  std::vector<double> batch_seconds;   // every measured batch, all rounds
  std::vector<double> warmup_seconds;  // warm-up batches, reported apart
  // serve: each run's latency at each of kLatencyQuantiles
  // (latency_runs[quantile][run], parallel to run_values), the way the
  // requests reached the server, and the mean request rate achieved.
  std::vector<std::vector<double>> latency_runs;
  std::string serve_path;
  std::vector<double> achieved_rates;  // per run
  // syscall/table: per kind of call, each run's median ns per call
  // (parallel to run_values).
  std::map<std::string, std::vector<double>> call_ns_runs;
  // The counting launch's operation mix (orchestrator/call_counting.h):
  // the worker's system calls per batch by kind; nullopt: none was made.
  std::optional<OperationMix> operation_mix;
  // What runs the environment's system calls when it is not the host's
  // kernel: "gVisor runsc version 0.0~20221219.0, ptrace platform" (from
  // the manifest), which a cost table's figures hold only for.
  std::string sandbox;
  std::optional<double> achieved_rate() const {
    return achieved_rates.empty() ? std::nullopt : std::optional<double>(mean(achieved_rates));
  }
  Summary runs;                        // summary of run_values
  // Run values with a modified z-score (Iglewicz-Hoaglin, on the MAD) above
  // 3.5: flagged in every report, never dropped from the statistics.
  std::vector<std::size_t> outlier_runs;
  // Below kMinOutlierSample runs nothing is flagged because nothing can be
  // judged, which is not the same as "none".
  bool outliers_assessed = false;
  Summary warmup;                      // summary of warmup_seconds
  Summary batches;                     // summary of batch_seconds
  int failed_launches = 0;
  std::vector<std::string> failures;   // causes, one per failed launch
  std::optional<nlohmann::json> fingerprint;  // from the first launch
  std::vector<std::string> fingerprint_changes;  // fields that changed between rounds
  std::optional<double> first_loss, last_loss;   // of the first successful launch
  std::string dataset;  // e.g. "mnist" or "synthetic"
  bool in_container = false;
  // Micro-benchmarks: the work of one operation (flops or bytes, from the
  // samples), the 99th percentile of the operations' seconds (io-lat's
  // tail), the file system the I/O went to, and the device's estimated
  // peak in GFLOP/s where the benchmark knows it (gpu-gemm).
  double work = 0;
  double p99_seconds = 0;
  std::string fs_type;
  std::optional<double> estimated_limit;  // in the figure's unit (run_records.h)
  // loader: the share of the measured time the training step waited for
  // data, over the runs kept; nullopt for the other workloads.
  std::optional<double> data_wait_share;
  std::optional<double> data_wait_seconds;  // its numerator, summed as runs are added
  // The counters of each successful launch that recorded its accounting.
  std::vector<LaunchCounters> run_counters;
  // A user's command with --metric: each successful launch's start-up, from
  // its start to the end of its last warm-up iteration, reported apart from
  // the iterations.
  std::vector<double> startup_seconds;
  Summary startup;
};

// What an environment's system calls predict of its overhead per batch
// (analysis/prediction.h computes it).
struct PredictedTerm {
  // The cost table's kind: "futex", "read", "null" (every call it has no
  // kind for), or "page fault" (priced at the fault kind, or in a table
  // without it as mmap less its two calls).
  std::string kind;
  double calls = 0;          // per batch
  // The baseline's count of the same calls per batch, where the term's
  // calls are the environment's own: a waiting thread's calls (sched_yield
  // in a spin-wait) follow how long it waits, not the work.
  std::optional<double> baseline_calls;
  double added_seconds = 0;  // per batch, CPU: calls x the extra cost of one
  double low = 0, high = 0;  // from the extra cost's 95% interval
};

struct Prediction {
  std::string env;
  // Whose operation mix: the environment's own, or the baseline's where its
  // own could not be counted (gVisor: its calls never reach the host's
  // kernel), said as such.
  std::string mix_from;
  bool faults_counted = true;  // runsc's trace of calls has no page faults: they are not in the prediction
  // gVisor: the page faults priced are the stubs', as the host's kernel took
  // them (with the table's fault kind, which measures them the same way).
  bool faults_from_stubs = false;
  std::vector<PredictedTerm> terms;  // largest first
  double cpu_seconds = 0, cpu_low = 0, cpu_high = 0;  // per batch, summed over threads
  double busy_cpus = 1;                                // the baseline's CPU time over its wall time
  double seconds = 0, low = 0, high = 0;               // per batch, wall: cpu / busy_cpus
  double measured_seconds = 0, measured_low = 0, measured_high = 0;  // the overhead's time per batch
  bool measured_significant = false;  // a share of an overhead that is not there means nothing
  // The cross-check, CPU per batch against the baseline's, read from
  // outside: the runtime's helpers (gVisor's Sentry, where the extra cost of
  // a call is spent) and the worker's own threads. Absent where either side
  // did not measure it.
  std::optional<DifferenceEstimate> helpers_cpu, worker_cpu;
  double share() const { return measured_seconds != 0 ? seconds / measured_seconds : 0; }
  // A term's CPU time as wall time per batch, as `seconds` is the sum's.
  double wall_seconds(const PredictedTerm& t) const { return t.added_seconds / busy_cpus; }
  // The two intervals do not overlap: the prediction and the measurement
  // disagree, a finding in itself.
  bool disagrees() const { return high < measured_low || low > measured_high; }
  // A spin-wait's yields: the baseline makes at least twice as many, each
  // cheaper, in the same waits. Their count follows the wait's length, and
  // their cost is wall time only where it takes a CPU from a thread at work.
  static bool waiting_calls(const PredictedTerm& t) {
    return t.kind == "yield" && t.baseline_calls && *t.baseline_calls >= 2 * t.calls;
  }
  // The helpers' CPU grew significantly: the runtime's own processes (a
  // sandbox's kernel) do the extra work, a cross-check of the prediction.
  bool helpers_at_work() const { return helpers_cpu && std::isfinite(helpers_cpu->ci95_low) && helpers_cpu->ci95_low > 0; }
};

struct CaseAnalysis {
  std::string case_id;
  std::string workload;
  CaseSpec spec;  // as planned (back end, device, batch, ...)
  std::string unit = "s/batch";
  bool startup = false;               // the startup workload: reported apart from training
  bool micro = false;                 // a micro-benchmark: reported apart, in its own figure
  // A user's command (`run -- COMMAND`): reported apart; its figure is each
  // launch's wall time, or the mean of the iterations --metric read (a rate
  // is kept as seconds per unit, micro set, and shown in its figure).
  bool command = false;
  // Of the samples of one launch: "mean"; "median" for starts and io-lat;
  // "min" (best of N) for stream.
  std::string run_statistic = "mean";
  // Micro-benchmarks: statistics stay over seconds per operation (so
  // overheads read as for training: above 1 is slower); reports show
  // figure(seconds), e.g. GFLOP/s, in figure_unit.
  std::string figure_unit;
  bool figure_is_rate = false;
  double figure_scale = 1;
  std::string figure_per = "operation";  // what a time figure is per (syscall: "call")
  double work = 0;  // of one operation, the same in every environment
  double figure(double seconds) const {
    return figure_is_rate ? work / seconds / figure_scale : seconds * figure_scale;
  }
  // A word for what one sample is: "batches", "starts" or "operations".
  std::string sample_noun() const {
    if (command) return spec.command.metric.source == MetricSpec::Source::wall_time ? "launches" : "iterations";
    return startup ? "starts" : micro ? "operations" : "batches";
  }
  // One of them: "batch", "launch", ...
  std::string sample_noun_one() const {
    std::string noun = sample_noun();
    noun.resize(noun.size() - (noun.ends_with("ches") ? 2 : 1));
    return noun;
  }
  std::vector<EnvironmentStats> envs;  // in the plan's order
  std::vector<Overhead> overheads;     // one per non-baseline env with data
  // Per overhead whose environments recorded counters: the counters against
  // the baseline's and, for a significant overhead, its causes.
  std::vector<Explanation> explanations;
  // Per environment whose overhead is explained: its differences from the
  // baseline that are possible causes, likeliest first.
  std::map<std::string, std::vector<LikelyCause>> likely_causes;
  // `dlcbench explain`: each ablated feature's share of the overhead.
  std::optional<CaseAblation> ablation;
  // serve: per non-baseline environment, each latency quantile compared
  // with the baseline's as the headline is (paired by round, robust
  // interval); the headline itself is p99 (run_statistic).
  struct QuantileComparison {
    std::string quantile;  // "p50", "p90", "p99", "p99.9"
    Overhead comparison;
  };
  std::map<std::string, std::vector<QuantileComparison>> latency;
  // syscall/table: per non-baseline environment, each kind's cost per call
  // against the baseline's, paired by round as the headline is.
  struct CallCost {
    std::string kind;       // "null", "futex", ... (workloads/micro/syscall_cost.h)
    double baseline_ns = 0;  // median over the baseline's runs
    double ns = 0;          // median over this environment's runs
    Overhead comparison;
    // The ns a call adds: the baseline's cost times the ratio's estimate
    // and its interval's ends less one (NaN: no interval).
    double added_ns() const { return baseline_ns * (comparison.robust.ratio - 1); }
    double added_low() const { return baseline_ns * (comparison.robust.ci95_low - 1); }
    double added_high() const { return baseline_ns * (comparison.robust.ci95_high - 1); }
  };
  std::map<std::string, std::vector<CallCost>> call_costs;
  // Per overhead, what the system calls predict of it (analysis/prediction.h).
  std::vector<Prediction> predictions;
  bool serves() const { return spec.serves(); }
  const Overhead* overhead_of(const std::string& env) const {
    for (const auto& o : overheads)
      if (o.env == env) return &o;
    return nullptr;
  }
  const Explanation* explanation_of(const std::string& env) const {
    for (const auto& e : explanations)
      if (e.env == env) return &e;
    return nullptr;
  }
};

struct Analysis {
  std::string baseline;
  std::vector<CaseAnalysis> cases;
  std::vector<std::string> notes;  // environments unavailable, skipped lines, ...
  // `dlcbench explain`: the environment explained, its variants (diagnostic
  // environments) and the features left out with why.
  std::optional<AblationPlan> ablation;
  bool comparable = true;          // false if a mismatch nobody asked for stopped a comparison
  bool allow_mismatch = false;     // the run was told to compare anyway
  double margin = kDefaultEquivalenceMargin;  // of the equivalence verdicts (--margin)
  // `dlcbench calibrate`: an A/A run, whose reports give the noise floor
  // (analysis/noise_floor.h), with --precision among its targets.
  bool calibration = false;
  double precision = 0;
  RunStatus status = RunStatus::unknown;  // the manifest's
  // The manifest's count of launch records against those results.jsonl
  // holds: fewer in the file means part of it was lost after the run
  // (truncated, replaced, edited), and the figures cover only what is left.
  std::optional<int> launches_recorded;
  int launches_found = 0;
  bool results_lost() const { return launches_recorded && launches_found < *launches_recorded; }
  bool nothing_left() const { return results_lost() && launches_found == 0; }
};

// The analysis, in named passes: the planned cases; the records folded into
// launches (analysis/launch_fold.h); each launch's run value; per case the
// statistics of every environment, then each environment against the
// baseline with the like-for-like check. `line_numbers` (parallel to
// records, optional) lets notes name the line of results.jsonl a problem is
// on.
// Throws DataError for a manifest that records no plan.
Analysis analyze(const Manifest& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers = {});
// The same from manifest.json's text, read as a Manifest (model/manifest.h):
// DataError names a field it cannot read, or a manifest of a newer format.
Analysis analyze(const nlohmann::json& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers = {});

// Per case: each environment's statistics (runs, batches, warm-up, outliers,
// the tail), and for a micro-benchmark the work of one operation, with a
// note where the environments' differ.
void summarize_environments(CaseAnalysis& ca, std::vector<std::string>& notes);
// Why `es` may not compare with `base`: their fingerprints' differences
// (those in `requested` asked for by an environment option), a different
// micro-benchmark operation, and anything that changed between rounds.
std::vector<Mismatch> comparison_mismatches(const CaseAnalysis& ca, const EnvironmentStats& base,
                                            const EnvironmentStats& es, const std::vector<std::string>& requested);
// Every environment with runs against the baseline: the overhead, and the
// mismatch policy (a mismatch nobody asked for stops the comparison, or is
// marked under --allow-mismatch).
void compare_with_baseline(CaseAnalysis& ca, Analysis& a, const RequestedFields& requested_fields);

// What the case's figure is, for the words of its comparisons: a rate
// (GFLOP/s, a command's events/s) or a time, and its unit.
FigureTerms figure_terms(const CaseAnalysis& c);

// The statistics of one environment in a case; nullptr if it has none.
const EnvironmentStats* find_environment(const CaseAnalysis& c, const std::string& env);

}  // namespace dlcbench
