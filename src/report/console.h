// The table printed at the end of `dlcbench run`: per case, one row per
// environment with seconds per batch, and the overhead against the baseline.
#pragma once

#include <string>

#include "analysis/analysis.h"

namespace dlcbench {

std::string render_console(const Analysis& analysis);

}  // namespace dlcbench
