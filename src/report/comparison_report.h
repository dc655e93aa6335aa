// `dlcbench compare A B` in each format: the Comparison (analysis/compare.h)
// is computed once; these only write it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare.h"

namespace dlcbench {

std::string render_comparison(const Comparison& c);           // console
std::string render_comparison_markdown(const Comparison& c);  // md
// {"a", "b", "rows": [{"case", "env", "unit", "a": {n, mean, ...}, "b": {...},
//  "change": one "overheads" entry of the report JSON (B relative to A),
//  "differences": [{"field", "a", "b"}]}], "notes": [...]}
nlohmann::json comparison_json(const Comparison& c);

}  // namespace dlcbench
