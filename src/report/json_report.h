// The analysis as JSON (analysis.json): every figure of the reports, for
// other tools. Undefined quantities (NaN: a CI with fewer than two runs) are
// null. For micro-benchmarks too, "runs", "batches" and "overheads" are over
// seconds per operation; "figure" gives the same statistics as GFLOP/s, ms...
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"

namespace dlcbench {

// docs/report.schema.json describes it; docs/report-json.md says what changed
// between versions.
inline constexpr int kAnalysisJsonSchemaVersion = 3;

// {"schema_version": kAnalysisJsonSchemaVersion, "run_id", "status", "baseline", "comparable",
//  "allow_mismatch", "methods", "notes": [...],
//  "cases": [{"case", "unit", "workload", "startup", "micro", "run_statistic",
//             "figure_unit", "figure_is_rate", "work" (null but for
//             micro-benchmarks; work: flops or bytes of one operation),
//             "envs": [{"env", "runs": {n, mean, median, stddev, min, max, cv,
//                       ci95_low, ci95_high}, "runs_box": {q1, median, q3,
//                       whisker_low, whisker_high} (the box plot of the run
//                       values; whiskers reach the furthest run not flagged),
//                       "batches": {...}, "run_values",
//                       "batch_seconds", "warmup_seconds", "warmup_count",
//                       "failed_launches", "failures", "fingerprint",
//                       "fingerprint_changes", "first_loss", "last_loss",
//                       "dataset", "in_container",
//                       micro-benchmarks only: "figure": {unit, n, mean, median,
//                       min, max, best, worst, ci95_low, ci95_high, box (of the
//                       runs' figures), and for a
//                       latency operations_mean, operations_p99}, "p99_seconds",
//                       "fs_type", "estimated_limit" and "fraction_of_limit"
//                       (gpu-gemm: its GPU's estimated peak GFLOP/s; gpu-copy:
//                       the PCIe link's or the memory's limit in GB/s; the
//                       fraction is the mean figure over it)}],
//             "overheads": [{"env", "ratio", "ci95_low", "ci95_high", "ci95_df",
//                            "interval" (none, bounded, reaches zero, unbounded),
//                            "percent", "percent_ci95_low" (null where the
//                            interval reaches zero), "percent_ci95_high",
//                            "t", "df", "p_value", "verdict" (in words),
//                            "judgement" (slower, faster, no measurable
//                            overhead, inconclusive, too few runs),
//                            "significant", "runs_needed" (where more runs
//                            would bound the interval), "added_seconds" and
//                            its "added_seconds_ci95_low/high", "compared",
//                            "mismatch_allowed", "mismatches": [{"field",
//                            "baseline_value", "other_value", "requested",
//                            "blocking", "fix", "possible_cause" (only
//                            when true: a difference in isolation)}]}]}]}
nlohmann::json analysis_json(const Analysis& analysis, const Manifest& manifest);

// One overhead (or, in `compare`, one difference) as in "overheads" above.
nlohmann::json overhead_json(const Overhead& o);

}  // namespace dlcbench
