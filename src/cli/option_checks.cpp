#include "cli/option_checks.h"

#include <sched.h>

#include <charconv>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/errors.h"
#include "orchestrator/plan.h"

namespace dlcbench::cli {
namespace {

// The whole text as a whole number, or nothing ("12abc", "1.5", "" are not).
std::optional<long> parse_whole_number(const std::string& text) {
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string check_whole_number(const std::string& text, long low, long high) {
  const auto value = parse_whole_number(text);
  if (!value) return fmt::format("'{}' is not a whole number: give one from {} to {}", text, low, high);
  if (*value < low || *value > high) return fmt::format("{} is out of range: give a whole number from {} to {}", text, low, high);
  return "";
}

}  // namespace

CLI::Validator whole_number_in(long low, long high) {
  return CLI::Validator([low, high](std::string& text) { return check_whole_number(text, low, high); },
                        fmt::format("INT in [{} - {}]", low, high));
}

CLI::Validator whole_numbers_in(long low, long high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const auto items = split_list(text);
        if (items.empty()) return fmt::format("give at least one whole number from {} to {}, e.g. 64 or 64,128", low, high);
        for (const auto& item : items)
          if (std::string why = check_whole_number(item, low, high); !why.empty()) return why;
        return "";
      },
      fmt::format("INT[,INT...] in [{} - {}]", low, high));
}

CLI::Validator seconds_up_to(double high) {
  return CLI::Validator(
      [high](std::string& text) -> std::string {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
          return fmt::format("'{}' is not a number of seconds: give one above 0, at most {:g}", text, high);
        if (!(value > 0) || value > high)
          return fmt::format("{} is out of range: give a number of seconds above 0, at most {:g}", text, high);
        return "";
      },
      fmt::format("SECONDS in (0 - {:g}]", high));
}

CLI::Validator not_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        if (text.find_first_not_of(" \t,") == std::string::npos)
          return fmt::format("an empty value names nothing: give {} (or leave the option out for its default)", what);
        return "";
      },
      "");
}

CLI::Validator checked_by(std::function<void(const std::string&)> check) {
  return CLI::Validator(
      [check = std::move(check)](std::string& text) -> std::string {
        try {
          check(text);
        } catch (const UsageError& e) {
          return e.what();
        }
        return "";
      },
      "");
}

int exit_code_of(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace dlcbench::cli
