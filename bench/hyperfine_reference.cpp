#include "hyperfine_reference.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/process.h"

namespace dlcbench::bench {

void run_or_throw(const std::vector<std::string>& argv) {
  auto c = capture_output(argv, 3600);
  if (!c.result.ok())
    throw std::runtime_error(fmt::format("{} {}\n{}", argv[0], c.result.describe(), c.result.stderr_tail));
}

std::string quoted_for_hyperfine(const std::string& argument) {
  const bool plain = !argument.empty() && std::all_of(argument.begin(), argument.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._-=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return argument;
  std::string out = "'";
  for (char c : argument) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<double> hyperfine_times(const std::vector<std::string>& command, int runs,
                                    const std::filesystem::path& json_file, int warmup) {
  std::vector<std::string> quoted;
  for (const auto& argument : command) quoted.push_back(quoted_for_hyperfine(argument));
  run_or_throw({"hyperfine", "-N", "--style", "none", "--warmup", std::to_string(warmup), "--runs",
                std::to_string(runs), "--export-json", json_file.string(), fmt::format("{}", fmt::join(quoted, " "))});
  std::ifstream in(json_file);
  const auto j = nlohmann::json::parse(in);
  return j.at("results").at(0).at("times").get<std::vector<double>>();
}

}  // namespace dlcbench::bench
