// The samples as one tidy CSV table: one row per measured or warm-up sample,
// with the case's settings beside it, ready for R, pandas or a spreadsheet.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/manifest.h"

namespace dlcbench {

// The columns, in order.
const std::vector<std::string>& samples_csv_columns();

// Writes a header line and one line per record with type "sample": run_id
// (from the manifest), the case's workload, backend, device, batch and input
// (from the manifest's plan.cases, matched by id; empty when not found), and
// the record's env, round, phase, iter, seconds, loss and read_seconds (an
// empty cell when absent or null); then, for a micro-benchmark's sample, its
// work (flops or bytes of the operation), figure_unit ("GFLOP/s", "GB/s",
// "MB/s", "ms") and figure (the operation's seconds in that unit: work /
// seconds for a rate), empty for training and start-up samples. Fields
// holding a comma, a double quote or a line break are quoted as RFC 4180
// says; lines end in "\n".
void write_samples_csv(std::ostream& out, const Manifest& manifest, const std::vector<nlohmann::json>& records);

// One field, quoted when it must be: `a,b` -> `"a,b"`, `say "hi"` -> `"say ""hi"""`.
std::string csv_field(const std::string& text);

}  // namespace dlcbench
