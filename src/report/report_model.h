// Every table and list of every report, built once from the analysis: the
// console, Markdown and HTML reports only lay out what is here, so a column
// is added in one place (report/tables.cpp) and shows in every format.
// Meaning travels as typed fields (a cell's style, a comparison's flags),
// never as text another module parses back.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"
#include "model/manifest.h"

namespace dlcbench {

// Every report shows its cases in sections, in this order: a user's commands,
// training,
// micro-benchmarks (each case in its own figure: GFLOP/s, GB/s, MB/s, ms),
// container start-up.
// A user's commands come first, in a section of their own.
enum class CaseKind { command, training, micro, startup };
inline constexpr CaseKind kCaseKinds[] = {CaseKind::command, CaseKind::training, CaseKind::micro, CaseKind::startup};
inline CaseKind kind_of(const CaseAnalysis& c) {
  return c.command ? CaseKind::command : c.startup ? CaseKind::startup : c.micro ? CaseKind::micro : CaseKind::training;
}
bool has_cases(const Analysis& analysis, CaseKind kind);
// "training", "micro", "startup": for HTML ids and classes.
const char* kind_slug(CaseKind kind);
// "training", "micro-benchmarks", "container start-up": for headings.
const char* kind_name(CaseKind kind);

// The one sign convention of every percentage a report shows, said with it.
inline constexpr const char* kChangeConvention =
    "A percentage is the change of the case's own figure: + is more of it (for a time, slower; for a rate such as "
    "GFLOP/s or events/s, more per second).";

// ---- Tables --------------------------------------------------------------------

// What a cell is beyond its text, for a format that can show it (HTML marks
// these cells).
enum class CellStyle { plain, not_compared, mismatch_allowed };

struct Cell {
  std::string text;
  CellStyle style = CellStyle::plain;
  // Offsets of the spaces in text where a renderer that wraps (HTML) may
  // break a line; a figure with its interval stays whole. Empty: the cell
  // is kept on one line.
  std::vector<std::size_t> breaks;
  Cell() = default;
  Cell(std::string t, CellStyle s = CellStyle::plain) : text(std::move(t)), style(s) {}  // NOLINT: cells from text
  Cell(const char* t) : text(t) {}                                                       // NOLINT
  bool operator==(const std::string& other) const { return text == other; }
  bool operator==(const char* other) const { return text == other; }
};
// For test failure messages.
inline std::ostream& operator<<(std::ostream& out, const Cell& cell) { return out << cell.text; }

// Phrases that each stay on one line, joined by separators that end in a
// space ("; ", ", "), at which the line may break.
struct Phrase {
  std::string separator;  // before this phrase; ignored for the first
  std::string text;
};
Cell phrases_cell(const std::vector<Phrase>& phrases);

// A table as cells, each column with its header, alignment and, for the
// console's fixed layouts, its least width and the spaces before it.
struct Table {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: figures, aligned right
  std::vector<std::vector<Cell>> rows;
  // The console only: least width and leading spaces per column (defaults:
  // the content's width, two spaces), and whether the last column is padded.
  std::vector<std::size_t> min_width;
  std::vector<std::size_t> gap;
  bool pad_last = false;
};

// One row per case and environment of the kind: mean with its 95% CI (a
// micro-benchmark's in its figure), the overhead against the baseline with
// its interval and p (for start-up also the milliseconds a start adds), the
// verdict.
Table summary_table(const Analysis& analysis, CaseKind kind);
// The console's summary in the paper's layout: a row per case, a column per
// environment, each cell the mean and the change in percent ("*" where
// significant).
Table console_summary_table(const Analysis& analysis, CaseKind kind);
// One row per environment: runs, batches (starts), mean, median, stddev,
// min, max, CV, 95% CI, warm-up batches and their mean, failed launches,
// outliers, data. For a micro-benchmark: runs, operations per run, mean,
// median, best and worst as figures, CV, 95% CI, (latencies: mean and p99
// over all operations), warm-up operations and their mean, failed launches,
// outliers, (I/O: file system), (gpu-gemm: share of the estimated peak), data.
Table detail_table(const CaseAnalysis& c);
// The console's narrower table of a training or start-up case (a
// micro-benchmark's is its detail table): runs, batches, mean, median,
// stddev, 95% CI, CV, warm-up mean, and the data with any notes.
Table console_case_table(const CaseAnalysis& c);
// The same network trained by several back ends (report/backend_comparison.h):
// a row per back end with its time on the baseline, its ratio to the
// fastest, and each container's overhead; no rows when the run has one back
// end per network. The console's shows the overhead's percentage ("*" where
// significant), the others its interval too.
Table backend_table(const Analysis& analysis);
Table console_backend_table(const Analysis& analysis);
// The counters of the measured phases (analysis/explanation.h), per batch: a
// row per counter either side recorded, the baseline's value, then each
// environment's value and its ratio to the baseline with Fieller's
// interval; "n/a" where one side could not measure it. No rows when no
// launch recorded its accounting.
Table counters_table(const CaseAnalysis& c, const std::string& baseline);
// Why each "n/a" of the counters table is one: "n/a in docker: perf_event_open
// failed: Operation not permitted (page faults (perf), ...)".
std::vector<std::string> counter_notes(const CaseAnalysis& c);
// `dlcbench explain` (analysis/ablation_shares.h): a row per variant: the
// feature, the variant's environment, what it changes, what that takes
// away per sample with Welch's interval, its share of the overhead with the
// bootstrap interval, and whether the fingerprint shows the change. No
// rows without an ablation.
Table ablation_table(const CaseAnalysis& c);
// serve: a row per latency quantile and environment: the environment with
// the way requests reached its server and the rate achieved, the latency
// (median over runs, ms, with the runs' range), its change against the
// baseline with the robust 95% CI (paired by round), and the verdict. No
// rows for other cases.
Table latency_table(const CaseAnalysis& c, const std::string& baseline);
// syscall/table: each kind of call's cost in each environment, and its
// ratio to the baseline's with the interval (no rows: not a cost table).
Table call_cost_table(const CaseAnalysis& c, const std::string& baseline);

// ---- Words ---------------------------------------------------------------------

// The methods behind every interval and p-value in the reports.
inline constexpr const char* kReportMethods =
    "verdict: Hodges-Lehmann ratio of run values paired by round, with the exact Wilcoxon signed-rank 95% CI, "
    "significant when it excludes 1; beside it the ratio of means with Fieller's 95% CI and "
    "Welch's t-test; \"no overhead above M\" only when both intervals lie within +-M; runs disturbed from outside "
    "(other processes' CPU or steal above 2% of the machine's) set aside and replaced; outlier runs flagged by "
    "modified z-score > 3.5 on the MAD (not assessed below 5 runs), never dropped";

// The one rule that flags outlier runs, in every table and chart.
inline constexpr const char* kOutlierRule =
    "modified z-score above 3.5 on the MAD, Iglewicz and Hoaglin; not assessed below 5 runs";

// What one run is, under the run's facts.
inline constexpr const char* kRunMethod =
    "Each run is one launch of the worker; its figure is the mean of its measured batches (for start-up, the median "
    "of its starts; for a micro-benchmark, as its case says). Means, confidence intervals and tests are over runs.";

inline constexpr const char* kBackendTableCaption =
    "The same network trained by each back end: its time in the baseline environment, against the fastest back "
    "end, and each container's overhead for that back end.";

// What the section's summary table shows, in a sentence or two.
std::string summary_caption(CaseKind kind);
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

// One comparison against the baseline, with the mismatch lines that go with it.
struct ComparisonLines {
  std::string headline;              // "docker vs host: ratio 1.0123, no measurable overhead (...)"
  std::vector<std::string> details;  // "blas/core: host has Zen, docker has Haswell (not asked for; fix: ...)"
  // "explained by CPU quota throttling +41.0 ms (78%, ...)": for a
  // significant overhead whose launches recorded their counters; "" otherwise.
  std::string explanation;
  bool compared = true;
  bool mismatch_allowed = false;
};
std::vector<ComparisonLines> comparison_lines(const CaseAnalysis& c, const std::string& baseline);
// "docker failed, round 3: worker killed by signal 9 (Killed)", one per failed launch.
std::vector<std::string> failure_lines(const CaseAnalysis& c);
// "docker: 2 of 22 runs disturbed from outside, set aside: round 6 (other
// processes used 4.5% of the machine's CPU, limit 2%), ...", one per
// environment with any, then one per environment disturbed significantly
// more often than the baseline.
std::vector<std::string> disturbance_lines(const CaseAnalysis& c, const std::string& baseline);

// ---- The run's facts -------------------------------------------------------------

// "Run", "Status", "Started", "Ended", "Command", "Baseline", "Methods" and
// their values; "?" where the manifest lacks one.
std::vector<std::pair<std::string, std::string>> run_facts(const Analysis& analysis, const Manifest& manifest);
// A warning for a run whose figures are incomplete or missing ("interrupted",
// still "running", "not comparable"), or "" for a run that finished.
std::string status_warning(const Manifest& manifest);
// Lines naming the differences the preflight found (manifest["preflight"]),
// e.g. "docker: libraries/digest: host has ..., docker has ... (not asked for)".
std::vector<std::string> preflight_lines(const Manifest& manifest);

// ---- The whole report ----------------------------------------------------------

struct SummarySection {
  CaseKind kind = CaseKind::training;
  bool has_cases = false;  // training's section is shown even without cases
  std::string heading;     // "Summary: training"
  std::string caption;     // without cases, the words that say so
  Table table;
  Table console;
};

struct CaseSection {
  const CaseAnalysis* analysis = nullptr;
  CaseKind kind = CaseKind::training;
  std::string caption;
  Table detail;
  Table console;  // the console's table: detail for a micro-benchmark
  std::vector<ComparisonLines> comparisons;
  std::vector<std::string> failures;
  // Runs disturbed from outside, per environment and why, and an
  // environment disturbed more often than the baseline (a finding).
  std::vector<std::string> disturbances;
  // The counters behind the explanations (no rows: none recorded), with
  // the reasons for the counters one side could not measure.
  std::string counters_caption;
  Table counters;
  std::vector<std::string> counter_notes;
  // `dlcbench explain`: each feature's share of the overhead (no rows: no
  // ablation), a sentence per feature and the closing outcome.
  std::string ablation_caption;
  Table ablation;
  // serve: the latency quantiles (no rows: not a serve case).
  std::string latency_caption;
  Table latency;
  // syscall/table: the cost of each kind of call per environment.
  std::string call_cost_caption;
  Table call_costs;
  std::vector<std::string> ablation_lines;
  std::string ablation_outcome;
};

struct Report {
  const Analysis* analysis = nullptr;
  std::vector<std::pair<std::string, std::string>> facts;
  std::string status_warning;
  std::vector<std::string> preflight;
  std::vector<SummarySection> summaries;  // training always, the others when they have cases
  Table backends, console_backends;       // no rows: one back end per network
  std::vector<CaseSection> cases;         // training, micro-benchmarks, start-up
  // `dlcbench calibrate`: the machine's noise floor per case, in lines.
  std::vector<std::string> noise_floor;
};

Report build_report(const Analysis& analysis, const Manifest& manifest);
// `dlcbench calibrate`: the machine's noise floor per case, in lines; none
// for another run.
std::vector<std::string> noise_floor_report(const Analysis& analysis);

}  // namespace dlcbench
