#include "core/accounting.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/fingerprint.h"
#include "core/memory.h"
#include "core/timer.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

using nlohmann::json;

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

double realtime_now() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// key=value fields of a line such as "some avg10=0.00 ... total=123".
std::optional<std::uint64_t> total_of(std::string_view line) {
  const auto at = line.find("total=");
  if (at == std::string_view::npos) return std::nullopt;
  try {
    return std::stoull(std::string(line.substr(at + 6)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The cpu.stat of this process's cgroup: v2's unified file, or v1's cpu
// controller (the namespace root inside a container).
std::optional<fs::path> cpu_stat_file(std::string& why) {
  const fs::path cg = "/sys/fs/cgroup";
  std::vector<fs::path> candidates;
  if (fs::exists(cg / "cgroup.controllers")) {
    candidates = {cg / fs::path(own_cgroup("/", "")).relative_path() / "cpu.stat", cg / "cpu.stat"};
  } else {
    const fs::path own = fs::path(own_cgroup("/", "cpu")).relative_path();
    for (const char* mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"})
      candidates.insert(candidates.end(), {cg / mount / own / "cpu.stat", cg / mount / "cpu.stat"});
  }
  for (const auto& file : candidates)
    if (fs::exists(file)) return file;
  why = "no cpu.stat for this process's cgroup under /sys/fs/cgroup (no cpu controller mounted here)";
  return std::nullopt;
}

const char* kPressureKinds[] = {"cpu", "memory", "io"};

}  // namespace

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::optional<MachineCpuTicks> parse_proc_stat(std::string_view text) {
  std::istringstream in{std::string(text.substr(0, text.find('\n')))};
  std::string label;
  in >> label;
  if (label != "cpu") return std::nullopt;
  std::uint64_t v[8] = {};  // user nice system idle iowait irq softirq steal
  for (auto& x : v)
    if (!(in >> x)) return std::nullopt;
  return MachineCpuTicks{v[0] + v[1] + v[2] + v[5] + v[6], v[3] + v[4], v[7]};
}

std::optional<double> parse_cpu_stat_usage(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value)
    if (key == "usage_usec") return static_cast<double>(value) * 1e-6;
  return std::nullopt;
}

std::optional<FineMachineCpu> read_fine_machine_cpu(const std::filesystem::path& cgroup_root) {
  for (const auto& v2 : {cgroup_root / "cpu.stat", cgroup_root / "unified" / "cpu.stat"})
    if (const auto usage = parse_cpu_stat_usage(read_small_file(v2))) return FineMachineCpu{*usage, v2.string()};
  const auto v1 = cgroup_root / "cpuacct" / "cpuacct.usage";
  const std::string text = read_small_file(v1);
  std::uint64_t ns = 0;
  if (!text.empty() && std::istringstream(text) >> ns) return FineMachineCpu{static_cast<double>(ns) * 1e-9, v1.string()};
  return std::nullopt;
}

std::optional<double> fine_busy_seconds(const std::optional<FineMachineCpu>& begin,
                                        const std::optional<FineMachineCpu>& end, double busy_ticks_seconds,
                                        double tick, double slack_seconds) {
  if (!begin || !end || begin->source != end->source) return std::nullopt;
  const double fine = end->busy_seconds - begin->busy_seconds;
  if (fine < 0 || std::fabs(fine - busy_ticks_seconds) > 5 * tick + slack_seconds) return std::nullopt;
  return fine;
}

double tick_rounding_seconds(double tick, int readings) {
  return 2 * tick * std::sqrt(static_cast<double>(readings) / 12.0);
}

std::optional<PressureTotals> parse_pressure(std::string_view text) {
  std::optional<PressureTotals> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto total = total_of(line);
    if (!total) continue;
    if (line.rfind("some", 0) == 0) {
      if (!out) out = PressureTotals{};
      out->some_us = *total;
    } else if (line.rfind("full", 0) == 0 && out) {
      out->full_us = *total;
    }
  }
  return out;
}

std::optional<CgroupThrottling> parse_cpu_stat(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::map<std::string, std::uint64_t> fields;
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) fields[key] = value;
  if (!fields.count("nr_periods") || !fields.count("nr_throttled")) return std::nullopt;
  CgroupThrottling t{fields["nr_periods"], fields["nr_throttled"], 0};
  if (fields.count("throttled_usec")) t.throttled_seconds = static_cast<double>(fields["throttled_usec"]) * 1e-6;
  else if (fields.count("throttled_time")) t.throttled_seconds = static_cast<double>(fields["throttled_time"]) * 1e-9;
  else return std::nullopt;
  return t;
}

std::optional<ThreadTimes> parse_schedstat(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::uint64_t cpu_ns = 0, wait_ns = 0;
  if (!(in >> cpu_ns >> wait_ns)) return std::nullopt;
  return ThreadTimes{static_cast<double>(cpu_ns) * 1e-9, static_cast<double>(wait_ns) * 1e-9};
}

double threads_at_work(const std::vector<double>& cpu_seconds_per_thread) {
  double sum = 0, squares = 0;
  for (double t : cpu_seconds_per_thread) {
    sum += t;
    squares += t * t;
  }
  return squares > 0 ? sum * sum / squares : 0;
}

ThreadPhase thread_phase(const std::map<std::string, ThreadTimes>& begin,
                         const std::map<std::string, ThreadTimes>& end) {
  ThreadPhase p;
  std::vector<double> cpu;
  for (const auto& [tid, after] : end) {
    const auto before = begin.find(tid);
    const ThreadTimes from = before == begin.end() ? ThreadTimes{} : before->second;
    p.wait_seconds += after.wait_seconds - from.wait_seconds;
    cpu.push_back(std::max(0.0, after.cpu_seconds - from.cpu_seconds));
  }
  for (const auto& [tid, before] : begin) p.ended_uncounted += !end.count(tid);
  p.threads = end.size();
  p.threads_at_work = threads_at_work(cpu);
  return p;
}

void add_thread_phase(nlohmann::json& process, const ThreadPhase& phase) {
  process["run_queue_wait_seconds"] = phase.wait_seconds;
  process["threads"] = phase.threads;
  process["threads_ended_uncounted"] = phase.ended_uncounted;
  process["threads_at_work"] = phase.threads_at_work;
}

// ---- Snapshots --------------------------------------------------------------

struct PhaseAccounting::Snapshot {
  double wall = 0;  // seconds since the epoch
  rusage usage{};
  std::map<std::string, ThreadTimes> run_wait;  // per thread id
  std::string run_wait_unavailable;
  std::optional<MachineCpuTicks> machine;
  std::optional<FineMachineCpu> fine_machine;  // the root cgroup's usage, where readable
  std::map<std::string, PressureTotals> pressure;
  std::map<std::string, std::string> pressure_unavailable;
  std::optional<CgroupThrottling> throttling;
  std::string throttling_unavailable;

  // `cpu_stat`: the cgroup's file, found once (cpu_stat_file); none: unread.
  static Snapshot take(const std::optional<fs::path>& cpu_stat, AccountingScope scope) {
    Snapshot s;
    s.wall = realtime_now();
    getrusage(scope == AccountingScope::children ? RUSAGE_CHILDREN : RUSAGE_SELF, &s.usage);
    std::error_code error;
    if (scope == AccountingScope::self)
      for (const auto& task : fs::directory_iterator("/proc/self/task", error)) {
        const auto times = parse_schedstat(read_small_file(task.path() / "schedstat"));
        if (times) s.run_wait[task.path().filename().string()] = *times;
      }
    if (scope == AccountingScope::children)
      s.run_wait_unavailable = "the command's threads are gone when it ends: dlcbench-probe reads their run-queue "
                               "wait while they run";
    else if (s.run_wait.empty())
      s.run_wait_unavailable = "no /proc/self/task/*/schedstat here (a kernel without scheduler statistics, or a "
                               "sandbox that does not provide them)";
    s.machine = parse_proc_stat(read_small_file("/proc/stat"));
    s.fine_machine = read_fine_machine_cpu();
    for (const char* kind : kPressureKinds) {
      const fs::path file = fs::path("/proc/pressure") / kind;
      if (auto p = parse_pressure(read_small_file(file))) s.pressure[kind] = *p;
      else
        s.pressure_unavailable[kind] = fs::exists(file) ? fmt::format("{} does not read as pressure totals", file.string())
                                                        : fmt::format("{} does not exist (a kernel without PSI)", file.string());
    }
    if (cpu_stat) {
      s.throttling = parse_cpu_stat(read_small_file(*cpu_stat));
      if (!s.throttling)
        s.throttling_unavailable = fmt::format("{} has no nr_periods and throttled time (a cgroup without a CPU "
                                               "quota, such as the root)",
                                               cpu_stat->string());
    }
    return s;
  }
};

// ---- perf_event_open ---------------------------------------------------------

// Software and hardware counters of the process, opened once when the
// worker starts, on each thread it has then (a library may have started
// one already): each counter is inherited by every thread started after,
// and a read sums them, including those that ended. They count only while
// enabled, over the measured phase.
class PhaseAccounting::PerfCounters {
 public:
  void open() {
    std::error_code error;
    for (const auto& task : fs::directory_iterator("/proc/self/task", error)) {
      try {
        threads_.push_back(static_cast<pid_t>(std::stol(task.path().filename().string())));
      } catch (const std::exception&) {
      }
    }
    for (auto& e : events_) open_event(e);
    if (!kernel_refused_) return;
    // An unprivileged process may still count its own user space.
    close_all();
    user_only_ = true;
    for (auto& e : events_) open_event(e);
  }

  void enable() {
    for (auto& e : events_) {
      e.at_start.assign(e.fds.size(), {});
      for (std::size_t k = 0; k < e.fds.size(); ++k) {
        read_counter(e.fds[k], e.at_start[k].v);
        ioctl(e.fds[k], PERF_EVENT_IOC_ENABLE, 0);
      }
    }
  }

  void read_into(json& perf, json& unavailable) const {
    for (const auto& e : events_) {
      if (e.fds.empty() || e.at_start.size() != e.fds.size()) {
        unavailable[std::string("perf.") + e.name] = e.unavailable;
        continue;
      }
      double total = 0;
      bool scaled = false;
      for (std::size_t k = 0; k < e.fds.size(); ++k) {
        ioctl(e.fds[k], PERF_EVENT_IOC_DISABLE, 0);
        std::uint64_t end[3] = {};
        if (!read_counter(e.fds[k], end)) continue;
        const auto& start = e.at_start[k].v;
        const double value = static_cast<double>(end[0] - start[0]);
        const double enabled = static_cast<double>(end[1] - start[1]);
        const double running = static_cast<double>(end[2] - start[2]);
        // Multiplexed with other counters: the count of the time it ran, scaled up.
        scaled = scaled || (running > 0 && running < enabled);
        total += running > 0 && running < enabled ? value * enabled / running : value;
      }
      if (scaled) perf["scaled"].push_back(e.name);
      perf[e.name] = total;
    }
    perf["scope"] = user_only_ ? "user space only (kernel counting refused)" : "user and kernel";
  }

  ~PerfCounters() { close_all(); }

 private:
  struct Event {
    const char* name;
    std::uint32_t type;
    std::uint64_t config;
    // Happens in the kernel (a context switch, a migration): counting user
    // space only would read 0 however many there were.
    bool in_kernel;
    std::vector<int> fds;  // one per thread the process had when they were opened
    std::string unavailable;
    struct Reading {
      std::uint64_t v[3] = {};  // value, time enabled, time running
    };
    std::vector<Reading> at_start;
  };

  static bool read_counter(int fd, std::uint64_t (&v)[3]) {
    return ::read(fd, v, sizeof v) == static_cast<ssize_t>(sizeof v);
  }

  static std::string refusal(int error) {
    switch (error) {
      case EACCES:
      case EPERM:
        return fmt::format("perf_event_open refused ({}): kernel.perf_event_paranoid forbids it, or the seccomp "
                           "profile does (Docker's and Podman's default profiles do)",
                           std::strerror(error));
      case ENOSYS:
        return "perf_event_open is not available (ENOSYS: blocked by a seccomp profile or a sandbox, or not in the "
               "kernel)";
      case ENOENT:
      case EOPNOTSUPP:
      case EINVAL:
        return fmt::format("the CPU or the virtual machine does not expose this counter ({})", std::strerror(error));
      default:
        return fmt::format("perf_event_open failed: {}", std::strerror(error));
    }
  }

  void open_event(Event& e) {
    if (user_only_ && e.in_kernel) {
      e.unavailable = "counting kernel events was refused (kernel.perf_event_paranoid, or no CAP_PERFMON here), and "
                      "this one happens in the kernel: user space alone would read 0";
      return;
    }
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = e.type;
    attr.config = e.config;
    attr.disabled = 1;
    attr.inherit = 1;
    attr.exclude_hv = 1;
    attr.exclude_kernel = user_only_ ? 1 : 0;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    for (pid_t thread : threads_) {
      const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, thread, -1, -1, PERF_FLAG_FD_CLOEXEC));
      if (fd >= 0) {
        e.fds.push_back(fd);
        continue;
      }
      const int error = errno;
      if (error == ESRCH) continue;  // the thread ended since the list was read
      if ((error == EACCES || error == EPERM) && !user_only_) kernel_refused_ = true;
      e.unavailable = refusal(error);
      for (int open : e.fds) ::close(open);
      e.fds.clear();
      return;
    }
  }

  void close_all() {
    for (auto& e : events_) {
      for (int fd : e.fds) ::close(fd);
      e.fds.clear();
      e.unavailable.clear();
    }
  }

  std::vector<Event> events_ = {
      {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, {}, {}, {}},
      {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, true, {}, {}, {}},
      {"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, true, {}, {}, {}},
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false, {}, {}, {}},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, {}, {}, {}},
  };
  std::vector<pid_t> threads_;
  bool user_only_ = false;
  bool kernel_refused_ = false;  // counting the kernel too was refused: count user space only
};

bool is_gvisor_kernel(std::string_view proc_version) {
  return proc_version.find("Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016") != std::string_view::npos;
}

// ---- The phase ---------------------------------------------------------------

PhaseAccounting::PhaseAccounting(AccountingScope scope) : perf_(std::make_unique<PerfCounters>()), scope_(scope) {
  Stopwatch own;
  perf_->open();
  // The process stays in its cgroup: the file is found once, not at each end of the phase.
  cpu_stat_ = cpu_stat_file(cpu_stat_unavailable_);
  gvisor_ = is_gvisor_kernel(read_small_file("/proc/version"));
  open_seconds_ = own.seconds();
}

PhaseAccounting::~PhaseAccounting() = default;

void PhaseAccounting::start() {
  Stopwatch own;
  begin_ = std::make_unique<Snapshot>(Snapshot::take(cpu_stat_, scope_));
  perf_->enable();
  own_seconds_ = own.seconds();
}

namespace {

// The perf counters' names in a record, as PerfCounters reads them.
constexpr const char* kPerfEventNames[] = {"page_faults", "context_switches", "cpu_migrations", "cycles",
                                           "instructions"};
constexpr const char* kSplitPerfReason =
    "a command's processes inherit the perf counters, which add a process's counts only when it ends: its "
    "iterations cannot be told from its start-up (counted only for a command without --metric)";

timeval plus_seconds(timeval t, double seconds) {
  const double total = seconds_of(t) + seconds;
  t.tv_sec = static_cast<time_t>(total);
  t.tv_usec = static_cast<suseconds_t>((total - static_cast<double>(t.tv_sec)) * 1e6);
  return t;
}

void add_live_usage(rusage& usage, const LiveUsage& live) {
  usage.ru_utime = plus_seconds(usage.ru_utime, live.user_seconds);
  usage.ru_stime = plus_seconds(usage.ru_stime, live.system_seconds);
  usage.ru_minflt += static_cast<long>(live.minor_faults);
  usage.ru_majflt += static_cast<long>(live.major_faults);
}

json process_deltas(const rusage& a, const rusage& b) {
  return {{"user_seconds", seconds_of(b.ru_utime) - seconds_of(a.ru_utime)},
          {"system_seconds", seconds_of(b.ru_stime) - seconds_of(a.ru_stime)},
          {"minor_faults", b.ru_minflt - a.ru_minflt},
          {"major_faults", b.ru_majflt - a.ru_majflt},
          {"voluntary_switches", b.ru_nvcsw - a.ru_nvcsw},
          {"involuntary_switches", b.ru_nivcsw - a.ru_nivcsw}};
}

}  // namespace

nlohmann::json PhaseAccounting::finish(int batches) {
  Stopwatch own;
  const Snapshot now = Snapshot::take(cpu_stat_, scope_);
  const Snapshot& end = last_mark_ ? *last_mark_ : now;
  json record = record_between(*begin_, end, batches, "measured");
  if (last_mark_) {
    // What the command did after its last iteration (an interpreter's
    // teardown): not the iterations', but its own, not another process's.
    const json tail = process_deltas(last_mark_->usage, now.usage);
    record["after_last_mark"] = {
        {"seconds", now.wall - last_mark_->wall},
        {"cpu_seconds", tail["user_seconds"].get<double>() + tail["system_seconds"].get<double>()}};
  }
  if (!split_) {  // after a split record_between says why there are none
    json perf = json::object();
    perf_->read_into(perf, record["unavailable"]);
    record["perf"] = perf;
  }
  // Its calls at the ends of the phase (outside every timed batch), and
  // opening the counters when the worker started.
  record["accounting_seconds"] = own_seconds_ + own.seconds();
  record["accounting_open_seconds"] = open_seconds_;
  return record;
}

nlohmann::json PhaseAccounting::split(const LiveUsage& live) {
  Stopwatch own;
  Snapshot now = Snapshot::take(cpu_stat_, scope_);
  add_live_usage(now.usage, live);
  json record = record_between(*begin_, now, 0, "startup");
  *begin_ = std::move(now);
  split_ = true;
  record["accounting_seconds"] = own.seconds();
  own_seconds_ = 0;
  return record;
}

void PhaseAccounting::mark(const LiveUsage& live) {
  Stopwatch own;
  auto now = std::make_unique<Snapshot>(Snapshot::take(cpu_stat_, scope_));
  add_live_usage(now->usage, live);
  last_mark_ = std::move(now);
  own_seconds_ += own.seconds();
}

nlohmann::json PhaseAccounting::record_between(const Snapshot& begin, const Snapshot& end, int batches,
                                               const char* phase) const {
  json record = {{"type", "accounting"}, {"phase", phase}, {"batches", batches},
                 {"wall_start", begin.wall}, {"wall_end", end.wall}};
  json unavailable = json::object();

  json process = process_deltas(begin.usage, end.usage);
  if (split_ || std::string_view(phase) == "startup") {
    // One end was read while the command ran: /proc has no switch counts
    // for a process's ended threads, and inherited perf counters add a
    // process's counts only when it ends.
    for (const char* counter : {"voluntary_switches", "involuntary_switches"}) {
      process.erase(counter);
      unavailable[fmt::format("process.{}", counter)] =
          "a running command's context switches cannot be read from outside it: counted only for a command "
          "without --metric (its whole launch)";
    }
    for (const char* e : kPerfEventNames) unavailable[fmt::format("perf.{}", e)] = kSplitPerfReason;
  }
  if (!end.run_wait_unavailable.empty()) {
    unavailable["process.run_queue_wait_seconds"] = end.run_wait_unavailable;
  } else {
    // Threads that ended during the phase took their times with them: counted apart.
    add_thread_phase(process, thread_phase(begin.run_wait, end.run_wait));
  }
  if (gvisor_) {
    // Its user and system seconds are the sandbox kernel's accounting of
    // the task, not CPU time as the host counts it (they exceed what the
    // sandbox's processes use): the orchestrator reads that from outside.
    record["sandbox_kernel"] = "gVisor";
    for (const char* counter : {"minor_faults", "major_faults", "involuntary_switches"}) {
      process.erase(counter);
      unavailable[fmt::format("process.{}", counter)] =
          "gVisor's getrusage does not count it (it reads 0 whatever happens); the sandbox's own processes are "
          "counted from outside";
    }
  }
  record["process"] = process;

  json machine = json::object();
  const long ticks = sysconf(_SC_CLK_TCK);
  const double own_cpu = process["user_seconds"].get<double>() + process["system_seconds"].get<double>();
  if (!begin.machine || !end.machine || ticks <= 0) {
    unavailable["machine.busy_seconds"] = "/proc/stat has no cpu line here";
  } else {
    const double tick = 1.0 / static_cast<double>(ticks);
    const double busy = static_cast<double>(end.machine->busy - begin.machine->busy) * tick;
    // /proc/stat counts in ticks: a process's own CPU time may exceed the
    // machine's busy time by up to a tick per CPU, never by more.
    const double slack = 2.0 * static_cast<double>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))) * tick;
    if (busy + slack < own_cpu) {
      for (const char* counter : {"busy_seconds", "steal_seconds", "others_cpu_seconds"})
        unavailable[fmt::format("machine.{}", counter)] = fmt::format(
            "/proc/stat here does not count this process's own CPU time ({:.2f} s busy against its own {:.2f} s): "
            "a sandbox such as gVisor shows its own; the machine is read from outside",
            busy, own_cpu);
    } else {
      // The root cgroup's microseconds where they agree with the ticks (see
      // orchestrator/outside_accounting.cpp): five fields truncated to a
      // tick at both ends make the ticks' busy time off by up to five.
      const auto fine_busy = fine_busy_seconds(begin.fine_machine, end.fine_machine, busy, tick,
                                               0.001 * (end.wall - begin.wall));
      const double rounding = fine_busy ? 0.0 : tick_rounding_seconds(tick, 10);
      machine["busy_seconds"] = fine_busy ? *fine_busy : busy;
      machine["busy_source"] = fine_busy ? end.fine_machine->source : std::string("/proc/stat (clock ticks)");
      machine["steal_seconds"] = static_cast<double>(end.machine->steal - begin.machine->steal) * tick;
      // Everything else on the machine: its busy time less this process's
      // CPU time; below zero only by the readings' rounding, which is zero.
      machine["others_cpu_seconds"] = std::max(0.0, machine["busy_seconds"].get<double>() - own_cpu);
      machine["others_cpu_rounding_seconds"] = rounding;
      machine["tick_seconds"] = tick;
    }
  }
  for (const char* kind : kPressureKinds) {
    const auto a = begin.pressure.find(kind), b = end.pressure.find(kind);
    if (a == begin.pressure.end() || b == end.pressure.end()) {
      unavailable[fmt::format("machine.pressure.{}", kind)] = end.pressure_unavailable.count(kind)
                                                                  ? end.pressure_unavailable.at(kind)
                                                                  : "read at only one end of the phase";
      continue;
    }
    machine["pressure"][kind]["some_seconds"] = static_cast<double>(b->second.some_us - a->second.some_us) * 1e-6;
    if (a->second.full_us && b->second.full_us)
      machine["pressure"][kind]["full_seconds"] = static_cast<double>(*b->second.full_us - *a->second.full_us) * 1e-6;
  }
  record["machine"] = machine;

  if (begin.throttling && end.throttling) {
    record["cgroup"] = {{"periods", end.throttling->periods - begin.throttling->periods},
                        {"throttled_periods", end.throttling->throttled_periods - begin.throttling->throttled_periods},
                        {"throttled_seconds", end.throttling->throttled_seconds - begin.throttling->throttled_seconds},
                        {"file", cpu_stat_->string()}};
  } else if (!cpu_stat_) {
    unavailable["cgroup"] = cpu_stat_unavailable_;
  } else {
    unavailable["cgroup"] = end.throttling_unavailable.empty() ? begin.throttling_unavailable : end.throttling_unavailable;
  }

  record["unavailable"] = unavailable;
  return record;
}

}  // namespace dlcbench
