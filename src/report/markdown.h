// The report as Markdown: the run's facts, a summary table per section
// (training, micro-benchmarks in their own units, container start-up), the
// back ends side by side, then one detail table per case with its
// comparisons, mismatches and failures. The tables are report_model.h's.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "analysis/analysis.h"
#include "report/report_model.h"

namespace dlcbench {

std::string render_markdown(const Analysis& analysis, const Manifest& manifest);

// One table, and text escaped, as the Markdown report writes them (for the
// cluster report).
void render_markdown_table(std::string& out, const Table& table);
std::string markdown_text(const std::string& text);

}  // namespace dlcbench
