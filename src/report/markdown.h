// The report as Markdown: the run's facts, a summary table in the manner of
// Xu, Shi and Chu (one row per case, one column per environment, the
// overhead against the baseline), the start-up workload apart, then one
// detail table per case with its comparisons, mismatches and failures.
//
// The tables are also built as plain cells here, so the HTML report shows
// exactly the same figures in the same words.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

std::string render_markdown(const Analysis& analysis, const nlohmann::json& manifest);

// ---- Shared by the Markdown and HTML reports -------------------------------

// A table as unformatted text cells; each row has header.size() cells.
struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: figures, aligned right
  std::vector<std::vector<std::string>> rows;
};

// The methods behind every interval and p-value in the reports.
inline constexpr const char* kReportMethods =
    "Fieller 95% CI of the ratio of means; Welch's t-test (verdict); Mann-Whitney U test (shown beside it); outlier "
    "runs flagged by modified z-score > 3.5 on the MAD, never dropped";

// "Run", "Status", "Started", "Ended", "Command", "Baseline", "Methods" and
// their values; "?" where the manifest lacks one.
std::vector<std::pair<std::string, std::string>> run_facts(const Analysis& analysis, const nlohmann::json& manifest);

// A warning for a run whose figures are incomplete or missing ("interrupted",
// still "running", "not comparable"), or "" for a run that finished.
std::string status_warning(const nlohmann::json& manifest);

// Lines naming the differences the preflight found (manifest["preflight"]),
// e.g. "docker: libraries/digest: host has ..., docker has ... (not asked for)".
std::vector<std::string> preflight_lines(const nlohmann::json& manifest);

// One row per case (training cases, or the start-up cases when `startup`),
// one column per environment with the mean and its 95% CI, then for each
// non-baseline environment its overhead in percent with the 95% CI and the
// verdict. Environments are taken from the first such case (they are the
// plan's, the same for every case).
TextTable summary_table(const Analysis& analysis, bool startup);

// One row per environment: runs, batches (starts), mean, median, stddev, min,
// max, CV, 95% CI, warm-up batches (starts), failed launches, data.
TextTable detail_table(const CaseAnalysis& c);

// One comparison against the baseline, in the console's words, with the
// mismatch lines that go with it.
struct ComparisonLines {
  std::string headline;              // "docker vs host: ratio 1.0123, no measurable overhead (...)"
  std::vector<std::string> details;  // "blas/core: host has Zen, docker has Haswell (not asked for; fix: ...)"
  bool compared = true;
  bool mismatch_allowed = false;
};
std::vector<ComparisonLines> comparison_lines(const CaseAnalysis& c, const std::string& baseline);

// "docker failed, round 3: worker killed by signal 9 (Killed)", one per failed launch.
std::vector<std::string> failure_lines(const CaseAnalysis& c);

// "fcn5/torch/cpu/b64: s/batch; statistics over runs, each run the mean of its measured batches".
std::string case_caption(const CaseAnalysis& c);

// Number formats shared by the reports; "n/a" for NaN or infinity.
std::string format_seconds(double v);             // "0.21667"
std::string format_percent_change(double ratio);  // ratio 1.031 -> "+3.1%"
std::string format_mean_ci(const Summary& s);     // "0.21667 (0.21126 .. 0.22209)"

}  // namespace dlcbench
