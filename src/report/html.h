// The report as one self-contained HTML5 file, readable offline: inline CSS,
// the charts of report/svg.h, no script, nothing fetched from anywhere. The
// tables are report_model.h's, as the Markdown report has them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/analysis.h"
#include "report/svg.h"

namespace dlcbench {

std::string render_html(const Analysis& analysis, const Manifest& manifest);

}  // namespace dlcbench
