// The report as Markdown: the run's facts, a summary table in the manner of
// Xu, Shi and Chu (one row per case, one column per environment, the
// overhead against the baseline), the micro-benchmarks (each in its own unit)
// and the start-up workload apart, then one detail table per case with its
// comparisons, mismatches and failures.
//
// The tables are also built as plain cells here, so the HTML report shows
// exactly the same figures in the same words.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"

namespace dlcbench {

std::string render_markdown(const Analysis& analysis, const nlohmann::json& manifest);

// ---- Shared by the Markdown and HTML reports -------------------------------

// Every report shows its cases in three sections, in this order: training,
// micro-benchmarks (each case in its own figure: GFLOP/s, GB/s, MB/s, ms),
// container start-up.
enum class CaseKind { training, micro, startup };
inline constexpr CaseKind kCaseKinds[] = {CaseKind::training, CaseKind::micro, CaseKind::startup};
inline CaseKind kind_of(const CaseAnalysis& c) {
  return c.startup ? CaseKind::startup : c.micro ? CaseKind::micro : CaseKind::training;
}
bool has_cases(const Analysis& analysis, CaseKind kind);
// "training", "micro", "startup": for HTML ids and classes.
const char* kind_slug(CaseKind kind);
// "training", "micro-benchmarks", "container start-up": for headings.
const char* kind_name(CaseKind kind);
// What the section's summary table shows, in a sentence or two.
std::string summary_caption(CaseKind kind);

// A table as unformatted text cells; each row has header.size() cells.
struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: figures, aligned right
  std::vector<std::vector<std::string>> rows;
};

// The methods behind every interval and p-value in the reports.
inline constexpr const char* kReportMethods =
    "Fieller 95% CI of the ratio of means; Welch's t-test (verdict); Mann-Whitney U test (shown beside it); outlier "
    "runs flagged by modified z-score > 3.5 on the MAD (not assessed below 5 runs), never dropped";

// The one rule that flags outlier runs, in every table and chart.
inline constexpr const char* kOutlierRule =
    "modified z-score above 3.5 on the MAD, Iglewicz and Hoaglin; not assessed below 5 runs";

// What one run is, under the run's facts.
inline constexpr const char* kRunMethod =
    "Each run is one launch of the worker; its figure is the mean of its measured batches (for start-up, the median "
    "of its starts; for a micro-benchmark, as its case says). Means, confidence intervals and tests are over runs.";

// "Run", "Status", "Started", "Ended", "Command", "Baseline", "Methods" and
// their values; "?" where the manifest lacks one.
std::vector<std::pair<std::string, std::string>> run_facts(const Analysis& analysis, const nlohmann::json& manifest);

// A warning for a run whose figures are incomplete or missing ("interrupted",
// still "running", "not comparable"), or "" for a run that finished.
std::string status_warning(const nlohmann::json& manifest);

// Lines naming the differences the preflight found (manifest["preflight"]),
// e.g. "docker: libraries/digest: host has ..., docker has ... (not asked for)".
std::vector<std::string> preflight_lines(const nlohmann::json& manifest);

// One row per case of the kind, one column per environment with the mean and
// its 95% CI (micro-benchmarks: as the case's figure, with its unit in the
// cell), then for each non-baseline environment its overhead in percent with
// the 95% CI and the verdict (micro-benchmarks too: of the time per
// operation, so + is slower). Environments are those of the kind's cases, in
// the plan's order.
TextTable summary_table(const Analysis& analysis, CaseKind kind);

// One row per environment: runs, batches (starts), mean, median, stddev, min,
// max, CV, 95% CI, warm-up batches (starts), failed launches, data. For a
// micro-benchmark: runs, operations per run, mean, median, best and worst as
// figures, CV, 95% CI, (latencies: mean and p99 over all operations),
// warm-up operations, failed launches, outliers, (I/O: file system), data.
TextTable detail_table(const CaseAnalysis& c);

// The same network trained by several back ends (report/backend_comparison.h):
// a row per back end with its time on the baseline, its ratio to the
// fastest, and each container's overhead; no rows when the run has one back
// end per network.
TextTable backend_table(const Analysis& analysis);
inline constexpr const char* kBackendTableCaption =
    "The same network trained by each back end: its time in the baseline environment, against the fastest back "
    "end, and each container's overhead for that back end.";

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

// "s/batch; statistics over runs, each run the mean of its measured batches"; for a
// micro-benchmark "GFLOP/s, higher is better; one operation 137.4 GFLOP; statistics
// over runs, each run the mean of its 5 operations; intervals and overheads ...".
std::string case_caption(const CaseAnalysis& c);

// What one run's value is: "mean of its measured batches", "median of its
// measured starts", "best of its 10 operations, as STREAM reports".
std::string run_value_words(const CaseAnalysis& c);

// Operations (batches, starts) per finished launch, when every environment
// ran the same number; 0 otherwise.
std::size_t samples_per_run(const CaseAnalysis& c);

// "ratio" or, for a micro-benchmark, "time-per-operation ratio": the ratio is
// of seconds per operation, not of the figure.
std::string ratio_label(const CaseAnalysis& c);

// ---- Micro-benchmark figures --------------------------------------------------

// A micro-benchmark's statistics (over seconds per operation) as its figure.
// A rate turns the order over (the lowest time is the highest rate), so the
// bounds of an interval swap and the best run is the one with the least time.
// A bound at or below zero seconds has no rate: +infinity ("n/a" in text).
struct FigureSummary {
  std::size_t n = 0;
  double mean = NAN, median = NAN;
  double best = NAN, worst = NAN;          // the fastest and slowest run
  double min = NAN, max = NAN;             // of the figures: min <= max
  double ci95_low = NAN, ci95_high = NAN;  // low <= high
};
FigureSummary figure_summary(const CaseAnalysis& c, const Summary& seconds);
// c.figure(seconds), but +infinity for a rate of a time at or below zero and
// NaN for a rate without the work of an operation; seconds as they are for
// a case that is not a micro-benchmark.
double figure_of(const CaseAnalysis& c, double seconds);
// The mean figure as a fraction of the device's estimated peak (gpu-gemm's
// GFLOP/s against its GPU's); NaN where the benchmark knows no peak.
double fraction_of_peak(const CaseAnalysis& c, const EnvironmentStats& e);
// "higher is better" for a rate, "lower is better" for a latency.
const char* better_words(const CaseAnalysis& c);
// The work of one operation in the figure's unit: "137.4 GFLOP", "268.4 MB";
// "" for a latency or unknown work.
std::string work_text(const CaseAnalysis& c);

// Decimals that show four significant digits of `typical` (at least one):
// 142.3, 12.34, 0.1823; a cell's other figures use the same.
int figure_decimals(double typical);
std::string format_figure(double v, int decimals);  // "n/a" for NaN or infinity
// "137.4 GFLOP/s (122.3 .. 156.9)" for a micro-benchmark; for other cases
// format_mean_ci(s).
std::string format_case_mean_ci(const CaseAnalysis& c, const Summary& s);

// Number formats shared by the reports; "n/a" for NaN or infinity.
std::string format_seconds(double v);             // "0.21667"
std::string format_percent_change(double ratio);  // ratio 1.031 -> "+3.1%"
std::string format_mean_ci(const Summary& s);     // "0.21667 (0.21126 .. 0.22209)"

}  // namespace dlcbench
