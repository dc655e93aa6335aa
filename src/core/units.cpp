#include "core/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) return std::nullopt;
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, number);
  if (ec != std::errc() || ptr != text.data() + end) return std::nullopt;
  std::string unit = text.substr(end);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  if (unit.size() == 2 && unit[1] == 'b') unit.pop_back();  // "4gb" as "4g"
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k") scale = 1024.0;
  else if (unit == "m") scale = 1024.0 * 1024;
  else if (unit == "g") scale = 1024.0 * 1024 * 1024;
  else if (unit == "t") scale = 1024.0 * 1024 * 1024 * 1024;
  else return std::nullopt;
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 1) || bytes > 1e18) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

double parse_share(const std::string& option, const std::string& text, const std::string& what) {
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size()) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    throw UsageError(fmt::format("{} {}: give {} such as 2% or 0.02", option, text, what));
  }
  if (percent || value >= 1) value /= 100;
  if (!(value > 0 && value < 1))
    throw UsageError(fmt::format("{} {}: give {} between 0% and 100%", option, text, what));
  return value;
}

double parse_duration(const std::string& option, const std::string& text) {
  const std::string fix = fmt::format("{} {}: give a duration such as 45m, 2h, 1h30m or 900 (seconds)", option, text);
  double total = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text.substr(at), &used);
    } catch (const std::exception&) {
      throw UsageError(fix);
    }
    at += used;
    double unit = 1;
    if (at < text.size()) {
      const char u = text[at++];
      if (u == 'h') unit = 3600;
      else if (u == 'm') unit = 60;
      else if (u == 's') unit = 1;
      else throw UsageError(fix);
    } else if (total > 0) {
      throw UsageError(fix);  // "1h30": a number without its unit after another
    }
    if (!(value >= 0) || !std::isfinite(value)) throw UsageError(fix);
    total += value * unit;
  }
  if (!(total > 0)) throw UsageError(fix);
  return total;
}

}  // namespace dlcbench
