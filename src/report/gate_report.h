// `dlcbench gate`'s words (analysis/gate.h computes the checks): one line per
// comparison and a last line with the counts, and the same as JUnit XML,
// which CI systems read.
#pragma once

#include <string>
#include <vector>

#include "analysis/gate.h"

namespace dlcbench {

std::vector<std::string> gate_lines(const GateResult& g);
std::string gate_junit(const GateResult& g, const std::string& run);

}  // namespace dlcbench
