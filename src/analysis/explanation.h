// Why an environment is slower: the counters of every launch's measured
// phase (its "accounting" record, core/accounting.h) per batch, each
// environment's against the baseline's with an interval, and for an
// overhead that is significant a time budget that says how many of the
// extra milliseconds per batch each measured cause accounts for:
//
//   wall ≈ (user + system CPU + helpers' CPU) / busy threads + waiting
//
// where busy threads is the baseline's CPU time over its wall time, and the
// waiting is the run-queue wait per compute thread, less the time the
// cgroup was throttled (counted on its own: a throttled thread waits too).
// What no measured cause accounts for is given as such. No cause is claimed
// for an overhead that is not significant, nor for a counter whose change is
// not.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/overhead.h"
#include "core/statistics.h"

namespace dlcbench {

// The counters a report shows, per batch (per operation for a
// micro-benchmark).
enum class Counter {
  wall_ms,               // from the samples: the run's mean time per batch
  cpu_ms,                // user + system
  busy_cpus,             // CPU time over wall time: how many CPUs the work kept busy at once
  threads_at_work,       // how many threads its CPU time was spread over (core/accounting.h)
  user_ms,
  system_ms,
  run_queue_wait_ms,     // summed over the process's threads
  throttled_ms,          // time the cgroup's run queues were throttled (CFS quota), summed over CPUs
  throttled_percent,     // of the cgroup's enforcement periods
  minor_faults,
  major_faults,
  voluntary_switches,
  involuntary_switches,
  perf_page_faults,
  perf_context_switches,
  perf_cpu_migrations,
  perf_cycles,
  perf_instructions,
  helpers_cpu_ms,        // the runtime's helpers (shim, daemon, conmon, gVisor's sandbox), read from outside
  others_cpu_ms,         // the rest of the machine: disturbance, never the environment's cost
  steal_ms,
};
inline constexpr Counter kCounters[] = {
    Counter::wall_ms,           Counter::cpu_ms,          Counter::busy_cpus,       Counter::threads_at_work, Counter::user_ms,
    Counter::system_ms,         Counter::run_queue_wait_ms, Counter::throttled_ms,
    Counter::throttled_percent, Counter::minor_faults,    Counter::major_faults,
    Counter::voluntary_switches, Counter::involuntary_switches, Counter::perf_page_faults,
    Counter::perf_context_switches, Counter::perf_cpu_migrations, Counter::perf_cycles,
    Counter::perf_instructions, Counter::helpers_cpu_ms,  Counter::others_cpu_ms,
    Counter::steal_ms,
};
// "user CPU", "run-queue wait", ...: a row's label.
const char* counter_label(Counter c);
// "ms", "%", "" (a count): the unit of a value per batch.
const char* counter_unit(Counter c);
// "user_ms", ...: the key in the JSON report.
const char* counter_key(Counter c);

// One launch's counters per batch, read from its accounting record; a
// counter the record lists as unavailable carries the reason instead.
struct LaunchCounters {
  std::map<Counter, double> values;
  std::map<Counter, std::string> unavailable;
};
// `accounting` is the launch's record; `wall_seconds` its mean measured
// batch (the run value), `batches` the count its samples give. A field of
// the wrong type is a DataError naming it.
LaunchCounters read_launch_counters(const nlohmann::json& accounting, double wall_seconds);

// One counter of one environment against the baseline's.
struct CounterComparison {
  Counter counter = Counter::wall_ms;
  std::size_t runs = 0, baseline_runs = 0;  // launches that measured it
  double mean = 0, baseline_mean = 0;       // per batch, over those launches (when runs > 0)
  std::optional<RatioEstimate> ratio;       // when both sides have two runs or more
  DifferenceEstimate difference;            // per batch
  // Where a side has no figure: the environment whose runs lack it (the
  // subject's label, or "baseline"), and why; both "" when measured.
  std::string unavailable_in;
  std::string unavailable;
};

// What moved, with the wall-clock milliseconds per batch it accounts for.
enum class Cause {
  more_user_cpu,     // the threads compute longer (a slower library, a different kernel)
  more_system_cpu,   // more time in the kernel: system calls, page faults, a sandbox's kernel
  more_cpu,          // user and system together, where only the sum is known (gVisor, read from outside)
  throttled,         // the cgroup's CPU quota stopped every thread
  run_queue_wait,    // runnable threads waited for a CPU, beyond throttling
  helpers_cpu,       // the runtime's own processes computed beside the worker
  // Fewer CPUs kept busy, with no more waiting for one: the work itself ran
  // on fewer threads (a thread setting, fewer CPUs it may use). Its time is
  // what the others leave of the overhead, claimed only where the threads
  // at work, a count measured apart from the times, fell significantly.
  fewer_busy_cpus,
};
inline constexpr Cause kCauses[] = {Cause::more_user_cpu, Cause::more_system_cpu, Cause::more_cpu, Cause::throttled,
                                    Cause::run_queue_wait, Cause::helpers_cpu, Cause::fewer_busy_cpus};
const char* cause_key(Cause c);
// "more user CPU", "fewer CPUs kept busy", ...: a cause in words.
const char* cause_name(Cause c);

struct CauseShare {
  Cause cause = Cause::more_user_cpu;
  DifferenceEstimate ms;  // wall milliseconds per batch, with Welch's 95% interval
  double share = 0;       // of the extra milliseconds per batch
  bool claimed = false;   // the overhead and this change are both significant
};

enum class ExplanationStatus {
  not_significant,  // no cause is claimed for an overhead that is not significant
  faster,           // the environment is faster: nothing to explain
  no_counters,      // the launches recorded no accounting on one side
  explained,        // at least one cause is claimed
  unexplained,      // significant, and nothing measured accounts for it
};

struct Explanation {
  std::string env;
  std::vector<CounterComparison> counters;  // in kCounters' order, those either side recorded
  ExplanationStatus status = ExplanationStatus::not_significant;
  DifferenceEstimate extra_ms;  // wall ms per batch, env - baseline
  std::vector<CauseShare> causes;  // every cause the counters allow, claimed or not
  double explained_ms = 0;         // the claimed causes together
  double unexplained_ms = 0;       // extra_ms less explained_ms
  double busy_threads = 0;         // the baseline's CPU time over its wall time
  int compute_threads = 0;         // the back end's threads (the waiting is per thread)
  // Details the words use: the share of periods throttled, and the system
  // time and faults as ratios (a sandbox makes each fault cost more).
  std::optional<double> throttled_percent;
};

// The explanation of `overhead` from the launches' counters (parallel lists
// of launches with an accounting record). `compute_threads` and `cpus` (the
// CPUs the environment's worker may use) from its fingerprint; 0 when
// unknown. A cgroup's throttled time is summed over its CPUs' run queues:
// the wall time throttled is that over min(threads, CPUs).
Explanation explain_overhead(const Overhead& overhead, const std::vector<LaunchCounters>& subject,
                             const std::vector<LaunchCounters>& baseline, int compute_threads, int cpus = 0);

// The "explained by" line: "explained by throttling: +41.0 ms per batch of
// +52.3 (78%; throttled in 41% of periods); unexplained +11.3 ms", or what
// else the status says.
std::string explanation_words(const Explanation& e, const std::string& baseline);

}  // namespace dlcbench
