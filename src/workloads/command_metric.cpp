#include "workloads/command_metric.h"

#include <algorithm>
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

std::string required_literal(const std::string& pattern) {
  std::string best, run;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  int depth = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    // A quantifier after a character makes it optional or repeated: it leaves the run.
    const bool quantified = next == '*' || next == '?' || next == '{' || next == '+';
    if (c == '\\') {
      // \. \( \$ ... stand for themselves; \d \s \b \1 ... do not.
      const bool literal = next != '\0' && std::string_view(".^$|?*+()[]{}\\/-").find(next) != std::string_view::npos;
      const bool quantified_escape =
          i + 2 < pattern.size() && std::string_view("*?{+").find(pattern[i + 2]) != std::string_view::npos;
      if (depth == 0 && literal && !quantified_escape) run += next;
      else end_run();
      ++i;
    } else if (c == '[') {
      end_run();
      // Past the class: "]" first in it is a member, and "\]" an escaped one.
      std::size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
      i = j;
    } else if (c == '(') {
      ++depth;
      end_run();
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
      end_run();
    } else if (c == '|' && depth == 0) {
      return "";  // either side may match: neither's text is required
    } else if (depth > 0) {
      continue;  // a group may be optional or alternate: nothing in it is required
    } else if (std::string_view(".^$*+?{}").find(c) != std::string_view::npos || quantified) {
      end_run();
      if (c == '{')  // past the count
        while (i + 1 < pattern.size() && pattern[i] != '}') ++i;
    } else {
      run += c;
    }
  }
  end_run();
  return best;
}

MetricReader::MetricReader(const MetricSpec& spec) : spec_(spec) {
  if (spec_.source == MetricSpec::Source::regex) {
    regex_ = std::regex(spec_.pattern);
    required_ = required_literal(spec_.pattern);
  } else if (spec_.source == MetricSpec::Source::json_field) {
    // The field's own key, quoted, where it needs no escaping in JSON.
    const std::string key = spec_.pattern.substr(spec_.pattern.rfind('.') + 1);
    if (!key.empty() && key.find_first_of("\"\\~/") == std::string::npos &&
        std::all_of(key.begin(), key.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20; }))
      required_ = "\"" + key + "\"";
  }
}

MetricReading MetricReader::reading(std::string_view line) const {
  MetricReading r;
  if (!required_.empty() && line.find(required_) == std::string_view::npos) return r;
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
