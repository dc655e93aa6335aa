// The report as one self-contained HTML5 file, readable offline: inline CSS,
// charts as inline SVG drawn here, no script, nothing fetched from anywhere.
//
// Per case: a bar chart of the mean seconds per batch per environment with
// 95% CI whiskers (svg class "chart bars"), and the run values per
// environment as a box plot with every run as a dot (class "chart box"); a
// micro-benchmark's are drawn in its figure (GFLOP/s, GB/s, MB/s, ms), the
// axis saying whether higher or lower is better.
// For all training cases together: the overhead ratio against the baseline
// with its 95% CI and a reference line at 1.0 (class "chart overhead"; the
// micro-benchmarks get one of their own, of the time per operation, class
// "chart overhead micro", and the start-up cases too, "chart overhead
// startup"). The summary and detail tables are the Markdown report's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/analysis.h"
#include "report/markdown.h"

namespace dlcbench {

std::string render_html(const Analysis& analysis, const nlohmann::json& manifest);

// The charts alone, each one <svg> element; `id` becomes the element's id.
std::string svg_bar_chart(const CaseAnalysis& c, const std::string& id);
std::string svg_box_plot(const CaseAnalysis& c, const std::string& id);
// One row per case of the kind and non-baseline environment with an
// overhead; "" when there is none.
std::string svg_overhead_chart(const Analysis& analysis, CaseKind kind, const std::string& id);

// Text for HTML content and attribute values: & < > " ' escaped.
std::string html_escape(const std::string& text);

}  // namespace dlcbench
