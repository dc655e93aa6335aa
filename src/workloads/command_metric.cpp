#include "workloads/command_metric.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace dlcbench {
namespace {

std::optional<double> number_in(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) return std::nullopt;
  while (*end == ' ') ++end;
  if (*end) return std::nullopt;
  return value;
}

nlohmann::json::json_pointer field_pointer(const std::string& field) {
  std::string pointer;
  for (char c : field) pointer += c == '.' ? std::string("/") : c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return nlohmann::json::json_pointer("/" + pointer);
}

}  // namespace

MetricSpec parse_metric(const std::string& text, const std::string& unit, bool higher_is_better) {
  MetricSpec spec;
  spec.higher_is_better = higher_is_better;
  spec.unit = unit;
  if (text.rfind("json:", 0) == 0) {
    spec.source = MetricSpec::Source::json_field;
    spec.pattern = text.substr(5);
    if (spec.pattern.empty())
      throw UsageError("--metric json: names no field: give json:FIELD, e.g. --metric json:step_time");
    return spec;
  }
  spec.source = MetricSpec::Source::regex;
  spec.pattern = text;
  try {
    const std::regex compiled(text);
    if (compiled.mark_count() != 1)
      throw UsageError(fmt::format("--metric '{}' has {} capture groups: give exactly one around the number, e.g. "
                                   "'step ([0-9.]+) s' (write (?:...) for a group that captures nothing)",
                                   text, compiled.mark_count()));
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--metric '{}' is not a valid regular expression (ECMAScript syntax): {}", text,
                                 e.what()));
  }
  return spec;
}

MetricReader::MetricReader(const MetricSpec& spec) : spec_(spec) {
  if (spec_.source == MetricSpec::Source::regex) regex_ = std::regex(spec_.pattern);
}

MetricReading MetricReader::reading(std::string_view line) const {
  MetricReading r;
  if (spec_.source == MetricSpec::Source::regex) {
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_search(line.begin(), line.end(), match, regex_) || !match[1].matched) return r;
    r.matched = true;
    r.text = match[1].str();
    r.value = number_in(r.text);
    return r;
  }
  if (spec_.source != MetricSpec::Source::json_field) return r;
  if (line.empty() || line.front() != '{') return r;
  const auto record = nlohmann::json::parse(line, nullptr, false);
  const auto pointer = field_pointer(spec_.pattern);
  if (!record.is_object() || !record.contains(pointer)) return r;
  const auto& value = record.at(pointer);
  r.matched = true;
  if (value.is_number()) {
    const double v = value.get<double>();
    r.text = value.dump();
    if (std::isfinite(v)) r.value = v;
  } else if (value.is_string()) {
    r.text = value.get<std::string>();
    r.value = number_in(r.text);
  } else {
    r.text = value.dump();
  }
  return r;
}

std::string MetricReader::describe() const {
  if (spec_.source == MetricSpec::Source::json_field) return fmt::format("the JSON field '{}'", spec_.pattern);
  return fmt::format("the pattern '{}'", spec_.pattern);
}

}  // namespace dlcbench
