// The report as Markdown: the run's facts, a summary table per section
// (training, micro-benchmarks in their own units, container start-up), the
// back ends side by side, then one detail table per case with its
// comparisons, mismatches and failures. The tables are report_model.h's.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/analysis.h"

namespace dlcbench {

std::string render_markdown(const Analysis& analysis, const Manifest& manifest);

}  // namespace dlcbench
