#include "report/backend_comparison.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace dlcbench {

std::vector<BackendGroup> backend_groups(const Analysis& analysis) {
  std::vector<BackendGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& c : analysis.cases) {
    if (c.startup || c.micro) continue;
    // The case id (workload/backend/device/bN[/disk]) without the back end.
    const std::string network = fmt::format("{}/{}/b{}{}", c.spec.workload, c.spec.device, c.spec.batch,
                                            c.spec.input == "disk" ? "/disk" : "");
    auto [it, added] = index.emplace(network, groups.size());
    if (added) groups.push_back({network, {}});
    BackendRow row{&c, 0, 0};
    for (const auto& e : c.envs)
      if (e.env == analysis.baseline && e.runs.n) row.baseline_seconds = e.runs.mean;
    groups[it->second].rows.push_back(row);
  }
  std::erase_if(groups, [](const BackendGroup& g) { return g.rows.size() < 2; });
  for (auto& g : groups) {
    // Fastest first; back ends without a baseline figure last.
    std::stable_sort(g.rows.begin(), g.rows.end(), [](const BackendRow& a, const BackendRow& b) {
      if ((a.baseline_seconds > 0) != (b.baseline_seconds > 0)) return a.baseline_seconds > 0;
      return a.baseline_seconds < b.baseline_seconds;
    });
    const double fastest = g.rows.front().baseline_seconds;
    if (fastest > 0)
      for (auto& r : g.rows)
        if (r.baseline_seconds > 0) r.vs_fastest = r.baseline_seconds / fastest;
  }
  return groups;
}

}  // namespace dlcbench
