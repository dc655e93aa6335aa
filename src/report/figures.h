// Numbers as the reports print them, and a micro-benchmark's statistics in
// its own figure (GFLOP/s, GB/s, MB/s, ms). Every format writes these same
// strings; "n/a" stands for NaN or infinity everywhere.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "analysis/analysis.h"

namespace dlcbench {

std::string format_seconds(double v);             // "0.21667"
std::string format_percent_change(double ratio);  // ratio 1.031 -> "+3.1%", never "-0.0%"
std::string format_change(double share);          // 0.031 -> "+3.1%", never "-0.0%"
std::string format_mean_ci(const Summary& s);     // "0.21667 (0.21126 .. 0.22209)"
std::string format_cv(const Summary& s);          // "4.5%", "n/a" for fewer than two values

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
// The mean figure as a fraction of the device's estimated limit (gpu-gemm's
// GFLOP/s against its GPU's peak, gpu-copy's GB/s against the PCIe link's or
// the memory's bandwidth); NaN where the benchmark knows no limit.
double fraction_of_limit(const CaseAnalysis& c, const EnvironmentStats& e);
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
// One value of the case as its table shows it: a figure with the decimals of
// the case's mean for a micro-benchmark, seconds otherwise.
std::string format_case_value(const CaseAnalysis& c, double seconds, int figure_decimals);

}  // namespace dlcbench
