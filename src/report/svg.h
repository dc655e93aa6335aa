// The HTML report's charts, each one <svg> element drawn here (no script,
// nothing fetched). Per case: a bar chart of the mean per environment with
// 95% CI whiskers (svg class "chart bars") and the run values as a box plot
// with every run a dot (class "chart box"); a micro-benchmark's are drawn in
// its figure (GFLOP/s, GB/s, MB/s, ms), the axis saying whether higher or
// lower is better. Per section: the overhead ratio against the baseline with
// its 95% CI and a reference line at 1.0 (class "chart overhead", "chart
// overhead micro", "chart overhead startup").
#pragma once

#include <string>

#include "analysis/analysis.h"
#include "analysis/history.h"
#include "report/answer.h"
#include "report/report_model.h"

namespace dlcbench {

// `id` becomes the element's id.
std::string svg_bar_chart(const CaseAnalysis& c, const std::string& id);
std::string svg_box_plot(const CaseAnalysis& c, const std::string& id);
// serve: each latency quantile a group of bars, one per environment (median
// of runs, whisker to the runs' range), on a log axis; "" without latencies.
std::string svg_latency_chart(const CaseAnalysis& c, const std::string& id);
// One row per case of the kind and non-baseline environment with an
// overhead; "" when there is none.
std::string svg_overhead_chart(const Analysis& analysis, CaseKind kind, const std::string& id);
// The answer's chart of a case (report/answer.h): a bar per compared
// environment from no change to its overhead, in percent or in milliseconds
// added, with the 95% CI as a whisker; dark where significant. "" when no
// environment was compared.
std::string svg_answer_chart(const AnswerCase& c, const std::string& id);

// The system calls' prediction of each overhead (analysis/prediction.h): a
// bar per environment for the measured overhead with its 95% CI, and under
// it the predicted one, a segment per operation (the largest four, the rest
// as "other calls") with its interval, and what it leaves of the measured
// one, outlined as "unexplained". "" without predictions.
std::string svg_prediction_chart(const CaseAnalysis& c, const std::string& id, const std::string& per);

// One history series (analysis/history.h): each run's overhead with its 95%
// interval as a whisker, oldest first and joined by a line, and a dashed mark
// where a change point (or a run that was off) starts.
std::string svg_trend_chart(const SeriesHistory& s, const std::string& id);

// Text for HTML (and inline SVG) content and attribute values: & < > " ' escaped.
std::string html_escape(const std::string& text);

}  // namespace dlcbench
