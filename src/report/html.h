// The report as one self-contained HTML5 file, readable offline: inline CSS,
// the charts of report/svg.h, no script, nothing fetched from anywhere. The
// tables are report_model.h's, as the Markdown report has them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/analysis.h"
#include "report/report_model.h"
#include "report/svg.h"

namespace dlcbench {

std::string render_html(const Analysis& analysis, const Manifest& manifest);

// A page's start (its head with the report's style, up to <body>), one
// table, as the HTML report writes them (for the cluster report).
std::string html_page_start(const std::string& title);
void render_html_table(std::string& out, const Table& table, const std::string& cls, const std::string& id);

}  // namespace dlcbench
