// Per-iteration figures read from a command's output (`--metric`): a
// regular expression with one capture group ("step ([0-9.]+) s"), or a field
// of output lines that are JSON objects ("json:step_time").
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "core/command_spec.h"

namespace dlcbench {

// The value of --metric as a spec: "json:FIELD" or a regular expression.
// Throws UsageError for a pattern that does not compile or does not have
// exactly one capture group, naming the fix.
MetricSpec parse_metric(const std::string& text, const std::string& unit, bool higher_is_better);

// What --metric found in one line: nothing, or the text it captured and
// the number that text is (none: "nan", "fast", ...).
struct MetricReading {
  bool matched = false;
  std::string text;
  std::optional<double> value;
};

class MetricReader {
 public:
  explicit MetricReader(const MetricSpec& spec);
  MetricReading reading(std::string_view line) const;
  // The figure in one line of output; nullopt when the line has none (or
  // what it captured is not a number).
  std::optional<double> read(std::string_view line) const { return reading(line).value; }
  // "the pattern 'step ([0-9.]+) s'" or "the JSON field 'step_time'", for messages.
  std::string describe() const;
  // Text every line it matches holds; "" where none can be told. A reader
  // of much output looks for it in a whole block and reads only the lines
  // that hold it.
  const std::string& required_text() const { return required_; }

 private:
  MetricSpec spec_;
  std::regex regex_;
  // Text every matching line holds ("events per second:" of 'events per
  // second: *([0-9.]+)', a JSON field's quoted key): a line without it is
  // passed over without running the regular expression or the JSON parser,
  // so a command that prints millions of lines is not slowed by the reading.
  std::string required_;
};

// The longest run of literal characters a match of the ECMAScript pattern
// must contain, or "" where none can be told (an alternation at the top).
std::string required_literal(const std::string& pattern);

}  // namespace dlcbench
