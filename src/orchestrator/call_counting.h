// The counting launch (issue 39): after the measured rounds, one more launch
// of a case in an environment whose worker waits around its measured phase
// (--count-pause) while the orchestrator counts, from outside, the system
// calls, page faults and context switches its threads make in the phase
// (core/syscall_counter.h). Nothing of it is timed or joins the statistics:
// its one record is the counts per batch, or why they could not be taken.
#pragma once

#include <istream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/syscall_counter.h"

#include "orchestrator/scheduler.h"

namespace dlcbench {

// The seconds the worker waits for the counters at each end of its phase.
inline constexpr double kCountPauseSeconds = 0.3;

// Whether a case gets a counting launch: a worker that runs the case's own
// code (training, micro-benchmarks); not start-up, serve or a user's command.
bool counts_calls(const CaseSpec& spec);

// Under gVisor: the calls a runsc --strace debug log (the sandbox's,
// "*.boot.txt") shows the application entering between the worker's two
// marks (kCountWindowOpen, kCountWindowClose), by kind. Page faults and
// context switches are not in it. nullopt when the marks are not both there.
std::optional<CallCounts> calls_in_strace_log(std::istream& log);

// Runs the counting launch and returns its "call_counts" record (not yet
// tagged with environment, round and case).
nlohmann::json count_calls_launch(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                                  const std::string& instance, const ScheduleOptions& options);

}  // namespace dlcbench
