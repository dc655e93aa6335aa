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

// /proc/<pid>/task/<tid>/schedstat: "cpu_ns run_delay_ns timeslices"; the
// run delay (time spent runnable, waiting on a run queue) in seconds.
std::optional<double> parse_schedstat_wait(std::string_view text);

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

 private:
  struct Snapshot;
  class PerfCounters;
  std::unique_ptr<Snapshot> begin_;
  std::unique_ptr<PerfCounters> perf_;
  double own_seconds_ = 0;   // the accounting's own calls at the start of the phase
  double open_seconds_ = 0;  // opening the counters
  std::optional<std::filesystem::path> cpu_stat_;  // this process's cgroup's cpu.stat
  std::string cpu_stat_unavailable_;               // why there is none
  bool gvisor_ = false;                            // under gVisor's kernel
  AccountingScope scope_ = AccountingScope::self;
};

}  // namespace dlcbench
