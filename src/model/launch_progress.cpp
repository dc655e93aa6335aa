#include "model/launch_progress.h"

#include <algorithm>
#include <set>

namespace dlcbench {
namespace {

// The launch a record belongs to, if it carries all three keys.
bool launch_key_of(const nlohmann::json& r, LaunchKey& key) {
  const auto round = r.find("round"), case_id = r.find("case"), env = r.find("env");
  if (round == r.end() || case_id == r.end() || env == r.end() || !round->is_number_integer() ||
      !case_id->is_string() || !env->is_string())
    return false;
  key = {round->get<int>(), case_id->get<std::string>(), env->get<std::string>()};
  return true;
}

}  // namespace

int recorded_rounds(const Plan& plan, const std::vector<nlohmann::json>& records) {
  if (plan.max_runs <= plan.runs) return plan.runs;
  int highest = plan.runs;
  for (const auto& r : records) {
    const auto round = r.find("round");
    if (round != r.end() && round->is_number_integer()) highest = std::max(highest, round->get<int>());
  }
  return std::min(highest, plan.max_runs);
}

ResumeState find_missing_launches(const Plan& plan, const std::vector<std::vector<std::size_t>>& round_orders,
                                  const std::vector<nlohmann::json>& records) {
  ResumeState state;
  state.rounds = recorded_rounds(plan, records);
  // Per launch: lines since its last launch record (or since a resume).
  std::set<LaunchKey> unfinished, failed;
  for (const auto& r : records) {
    const std::string type = r.value("type", "");
    if (type == "resume") {
      unfinished.clear();  // cut off before an earlier resume, which already discarded them
      continue;
    }
    LaunchKey key;
    if (!launch_key_of(r, key)) continue;
    if (type == "launch") {
      unfinished.erase(key);
      if (r.value("ok", false)) state.measured.insert(key);
      else failed.insert(key);
    } else {
      unfinished.insert(key);
    }
  }
  for (int round = 1; round <= state.rounds; ++round) {
    const auto& order = round_orders.at(static_cast<std::size_t>(round - 1));
    for (const auto& spec : plan.cases) {
      for (const std::size_t index : order) {
        LaunchKey key{round, spec.id(), plan.environments.at(index).text};
        if (state.measured.count(key)) continue;
        if (unfinished.count(key)) state.cut_off.push_back(key);
        else if (failed.count(key)) state.failed.push_back(key);
        state.missing.push_back(std::move(key));
      }
    }
  }
  return state;
}

}  // namespace dlcbench
