// Which launches of a plan a run's records show measured, cut off, failed
// or never started: what `run --resume` measures again, and what a cluster
// report says each node still lacks. Pure: from the plan and the records.
#pragma once

#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/plan.h"

namespace dlcbench {

struct ResumeState {
  // Rounds the earlier sessions reached: the plan's --runs, or more where
  // they added rounds (the resumed session may add more, as they would).
  int rounds = 0;
  std::set<LaunchKey> measured;  // a successful launch record: not run again
  // In the order the uninterrupted run would have launched them: round by
  // round, case by case, environments in the round's recorded order.
  std::vector<LaunchKey> missing;
  std::vector<LaunchKey> cut_off;  // samples without a launch record (killed)
  std::vector<LaunchKey> failed;   // a launch record, none of them ok
};

// Pure: from the plan, its recorded round orders (indices into
// plan.environments, one list per round) and the records of results.jsonl.
ResumeState find_missing_launches(const Plan& plan, const std::vector<std::vector<std::size_t>>& round_orders,
                                  const std::vector<nlohmann::json>& records);

// The rounds of the plan: recorded "round" records and launch records beyond
// plan.runs count only for a plan that could add rounds, up to its --max-runs.
int recorded_rounds(const Plan& plan, const std::vector<nlohmann::json>& records);

}  // namespace dlcbench
