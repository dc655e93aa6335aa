// `dlcbench history` in every format (analysis/history.h computes it): the
// change points first, then per series a table of its runs with each
// overhead and, beside a change, its size, interval and what changed with
// it; the HTML page draws each series as a trend.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/history.h"
#include "report/report_model.h"

namespace dlcbench {

// The series' table: run, ended, overhead (95% CI), change from the run before.
Table history_table(const SeriesHistory& s);
// "fcn5/torch/cpu/b64 docker against host on vm: changed at run R: ..." per change point.
std::vector<std::string> history_findings(const History& h);

std::string render_history(const History& h, const std::string& store);           // console
std::string render_history_markdown(const History& h, const std::string& store);  // md
std::string render_history_html(const History& h, const std::string& store);      // html
nlohmann::json history_json(const History& h, const std::string& store);

}  // namespace dlcbench
