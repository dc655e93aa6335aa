#include "orchestrator/wall_time_estimate.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/statistics.h"
#include "model/environment_request.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;

using LaunchCell = std::pair<std::string, std::string>;  // case id, environment label without "#N"

// Run folders (those with a results.jsonl), newest first by the file's time.
std::vector<fs::path> newest_runs(const fs::path& root, std::size_t max_runs) {
  std::vector<std::pair<fs::file_time_type, fs::path>> runs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const fs::path results = entry.path() / "results.jsonl";
    std::error_code file_error;
    const auto written = fs::last_write_time(results, file_error);
    if (!file_error) runs.emplace_back(written, entry.path());
  }
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<fs::path> out;
  for (std::size_t i = 0; i < runs.size() && i < max_runs; ++i) out.push_back(runs[i].second);
  return out;
}

// Each successful launch's wall time in one run's results.jsonl, by cell;
// a line that is no launch record is skipped before it is parsed.
std::size_t read_launch_times(const fs::path& results, std::map<LaunchCell, std::vector<double>>& times) {
  std::size_t read = 0;
  std::ifstream in(results);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"launch\"") == std::string::npos) continue;
    const auto record = nlohmann::json::parse(line, nullptr, false);
    if (!record.is_object() || record.value("type", "") != "launch" || !record.value("ok", false)) continue;
    const auto wall = record.find("wall_seconds");
    if (wall == record.end() || !wall->is_number() || !(wall->get<double>() > 0)) continue;
    if (!record.contains("case") || !record["case"].is_string() || !record.contains("env") || !record["env"].is_string())
      continue;
    times[{record["case"].get<std::string>(), without_copy_suffix(record["env"].get<std::string>())}].push_back(
        wall->get<double>());
    ++read;
  }
  return read;
}

}  // namespace

WallTimeEstimate estimate_wall_time(const Plan& plan, const fs::path& results_root, std::size_t max_runs) {
  std::map<LaunchCell, std::vector<double>> times;
  WallTimeEstimate e;
  for (const auto& run : newest_runs(results_root, max_runs)) {
    if (read_launch_times(run / "results.jsonl", times) > 0) ++e.runs_read;
  }
  for (const auto& c : plan.cases)
    for (const auto& env : plan.environments) {
      ++e.cells;
      const auto found = times.find({c.id(), without_copy_suffix(env.text)});
      if (found == times.end()) continue;
      ++e.cells_known;
      e.seconds += median(found->second) * plan.runs;
    }
  return e;
}

std::filesystem::path earlier_runs_folder(const RunRequest& request) {
  return request.run_folder.empty() ? request.out : request.run_folder.parent_path();
}

std::string estimate_words(const WallTimeEstimate& e, const fs::path& results_root) {
  if (e.cells_known == 0)
    return fmt::format("no estimate yet: no earlier run in {} measured these cases in these environments; the live "
                       "line's ETA starts with the first launches",
                       results_root.string());
  const std::string duration = e.seconds < 10   ? fmt::format("{:.1f} s", e.seconds)
                               : e.seconds < 90 ? fmt::format("{:.0f} s", e.seconds)
                                                : fmt::format("{:.0f} min", e.seconds / 60);
  const std::string runs = fmt::format("{} earlier run{} in {}", e.runs_read, e.runs_read == 1 ? "" : "s",
                                       results_root.string());
  if (e.cells_known == e.cells)
    return fmt::format("about {} of launches (each case and environment as {} measured it), plus preparing the "
                       "environments",
                       duration, runs);
  return fmt::format("at least {} of launches for the {} of {} cases x environments that {} measured; the others "
                     "are not known yet",
                     duration, e.cells_known, e.cells, runs);
}

}  // namespace dlcbench
