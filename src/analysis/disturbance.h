// Was a launch disturbed? Judged from what the rest of the machine did
// during its measured phase, never from its own seconds per batch: the
// orchestrator reads the machine's CPU time from outside at the phase's two
// ends (orchestrator/outside_accounting.h) and takes away the environment's
// processes (worker, runtime helpers, sandbox: the environment's cost, never
// disturbance) and its own. What is left is CPU time of processes that have
// nothing to do with the measurement; with steal (CPU time the hypervisor
// gave other guests) it is what slows a run down from outside.
//
// A disturbed run stays in results.jsonl and in the reports, is left out of
// the statistics, and makes the scheduler measure a replacement round.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

enum class DisturbanceKind {
  foreign_cpu,  // other processes' CPU time, as a share of the machine's CPU time over the phase
  steal,        // CPU time stolen by the hypervisor, likewise
};
const char* disturbance_key(DisturbanceKind kind);  // "foreign_cpu", "steal"

// The shares above which a run counts as disturbed. On the 2-vCPU
// development machine a quiet phase shows 0-1% foreign CPU (a few daemons,
// the clock ticks' rounding) and episodes that slow every environment show
// 3-10% (bench/estimators.cpp prints both groups' run times).
inline constexpr double kForeignCpuLimit = 0.02;
inline constexpr double kStealLimit = 0.02;

struct DisturbanceReading {
  DisturbanceKind kind = DisturbanceKind::foreign_cpu;
  double share = 0;  // of the machine's CPU time (phase seconds x CPUs)
  double limit = 0;
};

struct RunDisturbance {
  // Read: the launch's accounting carried the outside reading of the machine.
  bool assessed = false;
  std::string not_assessed;                 // why not, when not
  std::vector<DisturbanceReading> readings;  // every kind read
  bool disturbed() const;
  // "other processes used 7.1% of the machine's CPU (limit 2%)" for each
  // reading over its limit, joined with "; ".
  std::string why() const;
};

// From a launch's "accounting" record with its "outside" object; a record
// without the machine's reading (an older dlcbench, /proc/stat unreadable)
// is not assessed, and its run is kept.
RunDisturbance assess_disturbance(const std::optional<nlohmann::json>& accounting);

// Whether a case x environment's disturbed runs stay in its statistics:
// they are set aside only when the undisturbed ones make up the planned
// --runs, at least 2 and at least half of all; otherwise setting them aside
// would leave too little, or mostly what the machine allowed, and the
// reports say they were KEPT. The analysis and the stopping rule both ask.
bool keep_disturbed_runs(std::size_t undisturbed, std::size_t all, int planned_runs);

}  // namespace dlcbench
