// Values in the units users write them in: byte sizes ("4g"), shares
// ("2%"), durations ("1h30m"). Each is parsed here and only here, at the
// edge, and travels on as a number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dlcbench {

// "4g", "512m", "1048576", "1.5g" -> bytes (binary units, as docker reads them).
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

// "2%" -> 0.02, "0.02" -> 0.02, "2" -> 0.02 (as in PTS), for --until-cv,
// --precision and --margin. Throws UsageError naming `option` and `what` it
// takes ("an interval half-width") unless the share is above 0 and below 1.
double parse_share(const std::string& option, const std::string& text, const std::string& what);

// "45m" -> 2700, "2h" -> 7200, "90s" or "90" -> 90, "1h30m" -> 5400. Throws
// UsageError naming `option` unless it is a positive duration.
double parse_duration(const std::string& option, const std::string& text);

}  // namespace dlcbench
