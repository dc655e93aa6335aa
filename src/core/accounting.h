// What the worker's process, its cgroup and the machine did over the
// measured phase of a launch (never the warm-up): the counters the reports
// explain an overhead with. Each counter is measured or listed under
// "unavailable" with the reason; a zero is never written for a counter that
// was not read. The accounting times its own calls and records them, so its
// cost is known in every launch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

// The process's CPU time (every thread, user and system) in seconds: read
// around each batch so a sample carries its CPU time next to its wall time.
double process_cpu_seconds();

// ---- Parsers of the kernel's files, pure for the tests ---------------------

// The first ("cpu ") line of /proc/stat, in clock ticks.
struct MachineCpuTicks {
  std::uint64_t busy = 0;   // user + nice + system + irq + softirq (guest time is inside user)
  std::uint64_t idle = 0;   // idle + iowait
  std::uint64_t steal = 0;  // taken by the hypervisor for other guests
};
std::optional<MachineCpuTicks> parse_proc_stat(std::string_view text);

// The machine's busy CPU time from a source finer than /proc/stat's clock
// ticks (10 ms): the root cgroup's usage, in microseconds (cgroup v2
// cpu.stat usage_usec, mounted at /sys/fs/cgroup or, on a hybrid layout,
// /sys/fs/cgroup/unified) or nanoseconds (v1 cpuacct.usage). Inside a
// cgroup namespace that root is a container's, not the machine's: the
// reader compares its change with /proc/stat's before trusting it.
struct FineMachineCpu {
  double busy_seconds = 0;
  std::string source;  // the file read
};
std::optional<FineMachineCpu> read_fine_machine_cpu(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");
// The machine's busy seconds over a phase from the root cgroup's count
// (`begin`, `end`) where it agrees with /proc/stat's (`busy_ticks_seconds`):
// within the ticks' truncation (five fields, a tick each) plus `slack_seconds`.
// nullopt where it disagrees (a cgroup namespace's root) or was not read.
std::optional<double> fine_busy_seconds(const std::optional<FineMachineCpu>& begin,
                                        const std::optional<FineMachineCpu>& end, double busy_ticks_seconds,
                                        double tick, double slack_seconds);
// What truncating `readings` values to a tick can add up to: two standard
// deviations of their sum (each uniform over a tick, variance tick^2 / 12).
double tick_rounding_seconds(double tick, int readings);
// "usage_usec 123" among a cpu.stat file's lines, in seconds.
std::optional<double> parse_cpu_stat_usage(std::string_view text);

// A /proc/pressure/{cpu,memory,io} file: the totals of its "some" and
// "full" lines, in microseconds ("full" is absent for cpu on older kernels).
struct PressureTotals {
  std::uint64_t some_us = 0;
  std::optional<std::uint64_t> full_us;
};
std::optional<PressureTotals> parse_pressure(std::string_view text);

// A cgroup's cpu.stat: v2 gives throttled_usec, v1 throttled_time (ns).
struct CgroupThrottling {
  std::uint64_t periods = 0;
  std::uint64_t throttled_periods = 0;
  double throttled_seconds = 0;
};
std::optional<CgroupThrottling> parse_cpu_stat(std::string_view text);

// /proc/<pid>/task/<tid>/schedstat: "cpu_ns run_delay_ns timeslices": the
// thread's CPU time and its run delay (time spent runnable, waiting on a
// run queue), in seconds.
struct ThreadTimes {
  double cpu_seconds = 0;
  double wait_seconds = 0;
};
std::optional<ThreadTimes> parse_schedstat(std::string_view text);

// How many threads the CPU time was spread over: (sum t)^2 / sum t^2 (the
// inverse Simpson index), so n threads with equal shares count n and a
// thread with a sliver of the time counts for its sliver. 0 when none
// used any CPU.
double threads_at_work(const std::vector<double>& cpu_seconds_per_thread);

// The threads over a phase, from readings per thread at its start and its
// end: a thread read only at the end started during the phase and counts
// whole; one read only at the start ended and is not counted (its last
// times are gone with it).
struct ThreadPhase {
  double wait_seconds = 0;
  double threads_at_work = 0;
  std::size_t threads = 0;          // read at the end
  std::size_t ended_uncounted = 0;  // read at the start only
};
ThreadPhase thread_phase(const std::map<std::string, ThreadTimes>& begin,
                         const std::map<std::string, ThreadTimes>& end);
// Writes a phase's threads into an accounting record's "process" object.
void add_thread_phase(nlohmann::json& process, const ThreadPhase& phase);

// Whether /proc/version is gVisor's: its user-space kernel reports a fixed
// "Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016". Its getrusage
// counts no page faults and no involuntary switches (zeros that measure
// nothing), and its /proc/stat is the sandbox's own, all zeros.
bool is_gvisor_kernel(std::string_view proc_version);

// ---- The measured phase ---------------------------------------------------

// Whose use the accounting counts: the process itself (the worker), or the
// children it waits for (dlcbench-probe, around a user's command: rusage of
// the waited-for process tree; the perf counters, opened before the fork,
// are inherited by the whole tree).
enum class AccountingScope { self, children };

// What processes still running have used so far, read from /proc/PID/stat
// (each one's own use and that of the children it has waited for): what
// getrusage(RUSAGE_CHILDREN) cannot see until they end.
struct LiveUsage {
  double user_seconds = 0;
  double system_seconds = 0;
  double minor_faults = 0;
  double major_faults = 0;
};

class PhaseAccounting {
 public:
  // Opens the perf counters: before the process starts any thread (they are
  // inherited only by threads started after), so before the back end is made.
  explicit PhaseAccounting(AccountingScope scope = AccountingScope::self);
  ~PhaseAccounting();
  PhaseAccounting(const PhaseAccounting&) = delete;
  PhaseAccounting& operator=(const PhaseAccounting&) = delete;

  // Right before the first measured batch.
  void start();
  // Right after the last one: the "accounting" record of the launch.
  nlohmann::json finish(int batches);
  // dlcbench-probe, when a command prints its first measured iteration:
  // the record of its start-up so far ("phase": "startup"), and the
  // measured phase starts again from now. `live` is what the command's
  // running processes used so far. Their context switches and the perf
  // counters they inherit cannot be read before they end, so both records
  // list those as unavailable.
  nlohmann::json split(const LiveUsage& live);
  // dlcbench-probe, at each iteration after split(): the phase ends at the
  // last mark, so a command's exit (an interpreter's teardown) is not
  // spread over its iterations; finish() records that tail's wall and CPU
  // time apart ("after_last_mark").
  void mark(const LiveUsage& live);

 private:
  struct Snapshot;
  class PerfCounters;
  std::unique_ptr<Snapshot> begin_;
  std::unique_ptr<PerfCounters> perf_;
  nlohmann::json record_between(const Snapshot& begin, const Snapshot& end, int batches, const char* phase) const;
  bool split_ = false;  // the measured phase began while the command ran
  std::unique_ptr<Snapshot> last_mark_;
  double own_seconds_ = 0;   // the accounting's own calls at the start of the phase
  double open_seconds_ = 0;  // opening the counters
  std::optional<std::filesystem::path> cpu_stat_;  // this process's cgroup's cpu.stat
  std::string cpu_stat_unavailable_;               // why there is none
  bool gvisor_ = false;                            // under gVisor's kernel
  AccountingScope scope_ = AccountingScope::self;
};

}  // namespace dlcbench
