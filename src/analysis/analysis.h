// Turns manifest.json and results.jsonl into per-case statistics and
// overheads. Reports are computed from this and nothing else, so every
// figure can be recomputed from the two files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/comparability.h"
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
  std::vector<double> batch_seconds;   // every measured batch, all rounds
  std::vector<double> warmup_seconds;  // warm-up batches, reported apart
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
  std::optional<double> estimated_peak_gflops;
};

// The judgement on one comparison; every report words it from this.
enum class Verdict {
  too_few_runs,            // fewer than two runs on a side: no interval
  slower,                  // significant: the interval excludes 1 and Welch's p < 0.05
  faster,
  no_measurable_overhead,  // not significant, and the whole interval lies within +-kEquivalenceMargin
  inconclusive,            // not significant, and the interval reaches beyond the margin (or is unbounded)
};
// "No measurable overhead" is claimed only for an interval inside +-5%:
// an interval of -32% .. +6173% excludes nothing and says so.
inline constexpr double kEquivalenceMargin = 0.05;

Verdict judge(const RatioEstimate& r);
inline bool is_significant(Verdict v) { return v == Verdict::slower || v == Verdict::faster; }

// Between two environments of a run ("overhead", "the baseline") or two
// runs (`dlcbench compare`: "difference", B relative to A).
enum class ComparisonWording { overhead, difference };

struct Overhead {
  std::string env;
  RatioEstimate estimate;  // env mean / baseline mean, Fieller CI, Welch's t-test
  // env mean - baseline mean with Welch's interval: start-up reads best as
  // the milliseconds each start adds.
  DifferenceEstimate added;
  MannWhitneyTest rank_test;  // of the run values: robust to outliers and skew
  Verdict verdict = Verdict::too_few_runs;
  // Where the interval is missing or unbounded: the runs that would bound it.
  std::size_t runs_needed = 0;
  std::string verdict_text;  // in words, with the interval and p (verdict_words)
  std::vector<Mismatch> mismatches;  // differences in the fingerprints, asked for or not
  bool compared = true;              // false: a mismatch nobody asked for stopped it
  bool mismatch_allowed = false;     // compared despite such a mismatch (--allow-mismatch)
};

struct CaseAnalysis {
  std::string case_id;
  std::string workload;
  CaseSpec spec;  // as planned (back end, device, batch, ...)
  std::string unit = "s/batch";
  bool startup = false;               // the startup workload: reported apart from training
  bool micro = false;                 // a micro-benchmark: reported apart, in its own figure
  // Of the samples of one launch: "mean"; "median" for starts and io-lat;
  // "min" (best of N) for stream.
  std::string run_statistic = "mean";
  // Micro-benchmarks: statistics stay over seconds per operation (so
  // overheads read as for training: above 1 is slower); reports show
  // figure(seconds), e.g. GFLOP/s, in figure_unit.
  std::string figure_unit;
  bool figure_is_rate = false;
  double figure_scale = 1;
  double work = 0;  // of one operation, the same in every environment
  double figure(double seconds) const {
    return figure_is_rate ? work / seconds / figure_scale : seconds * figure_scale;
  }
  // A word for what one sample is: "batches", "starts" or "operations".
  std::string sample_noun() const { return startup ? "starts" : micro ? "operations" : "batches"; }
  std::vector<EnvironmentStats> envs;  // in the plan's order
  std::vector<Overhead> overheads;     // one per non-baseline env with data
};

struct Analysis {
  std::string baseline;
  std::vector<CaseAnalysis> cases;
  std::vector<std::string> notes;  // environments unavailable, skipped lines, ...
  bool comparable = true;          // false if a mismatch nobody asked for stopped a comparison
  bool allow_mismatch = false;     // the run was told to compare anyway
  std::string status;              // the manifest's: "completed", "interrupted", ...
  // The manifest's count of launch records against those results.jsonl
  // holds: fewer in the file means part of it was lost after the run
  // (truncated, replaced, edited), and the figures cover only what is left.
  std::optional<int> launches_recorded;
  int launches_found = 0;
  bool results_lost() const { return launches_recorded && launches_found < *launches_recorded; }
  bool nothing_left() const { return results_lost() && launches_found == 0; }
};

// The current manifest format; analyze() refuses newer ones.
inline constexpr int kManifestSchemaVersion = 1;

// `line_numbers` (parallel to records, optional) lets notes name the line of
// results.jsonl a problem is on. Throws std::runtime_error for a manifest it
// cannot read (missing plan, newer format).
Analysis analyze(const nlohmann::json& manifest, const std::vector<nlohmann::json>& records,
                 const std::vector<std::size_t>& line_numbers = {});

// The statistics of one environment in a case; nullptr if it has none.
const EnvironmentStats* find_environment(const CaseAnalysis& c, const std::string& env);

// The comparison of `subject` with `baseline` run values: the ratio, its
// interval and tests, the verdict and its words.
Overhead compare_run_values(const std::string& env, std::span<const double> subject, std::span<const double> baseline,
                            ComparisonWording wording);

// "no measurable overhead (95% CI -1.2% .. +0.8%, within +-5%, p = 0.6)",
// "slower by 3.1% (95% CI +1.2% .. +5.0%, p = 0.003)", "inconclusive: ...".
std::string verdict_words(const Overhead& o, ComparisonWording wording);
// The verdict alone, for a table's verdict column: "slower by 3.1%",
// "no measurable overhead", "inconclusive", "too few runs".
std::string short_verdict_words(const Overhead& o, ComparisonWording wording);
// The time each sample adds against the baseline, in milliseconds:
// "+283.1 ms per start (95% CI +270.4 .. +295.8 ms)".
std::string added_time_words(const Overhead& o, const std::string& per);
// "95% CI -1.2% .. +0.8%", "95% CI unbounded", "95% CI includes ratios <= 0
// .. +203.4%", "no 95% CI": never a bound no ratio of times can have.
std::string ratio_interval_words(const RatioEstimate& r);

}  // namespace dlcbench
