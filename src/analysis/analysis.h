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

struct Overhead {
  std::string env;
  RatioEstimate estimate;  // env mean / baseline mean, Fieller CI, Welch's t-test
  MannWhitneyTest rank_test;  // of the run values: robust to outliers and skew
  std::string verdict;     // in words
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

// "no measurable overhead (95% CI -1.2% .. +0.8%)", "slower by 3.1% (...)".
std::string overhead_verdict(const RatioEstimate& r, std::size_t n_env, std::size_t n_baseline);

}  // namespace dlcbench
