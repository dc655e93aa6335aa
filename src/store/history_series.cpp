#include "store/history_series.h"

#include <map>
#include <tuple>

namespace dlcbench {

std::vector<HistorySeries> history_series(const std::vector<StoredRun>& runs, const SeriesFilter& filter) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, HistorySeries> by_key;
  for (const auto& run : runs)
    for (const auto& c : run.comparisons) {
      if (!c.compared) continue;
      if (!filter.case_id.empty() && c.case_id != filter.case_id) continue;
      if (!filter.env.empty() && c.env != filter.env) continue;
      HistorySeries& s = by_key[{run.machine, c.case_id, c.env, c.baseline}];
      s.machine = run.machine;
      s.case_id = c.case_id;
      s.env = c.env;
      s.baseline = c.baseline;
      s.entries.push_back({run.run_id, run.ended_at, c.headline, c.facts, run.calibration});
    }
  std::vector<HistorySeries> out;
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

}  // namespace dlcbench
