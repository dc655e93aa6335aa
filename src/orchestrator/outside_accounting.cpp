#include "orchestrator/outside_accounting.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "core/memory.h"
#include "core/timer.h"
#include "runtimes/environment.h"

namespace dlcbench {
namespace {

namespace outside_fs = std::filesystem;

// /proc/PID/stat: "pid (comm) state ppid ... utime stime ...": the comm may
// hold spaces and parentheses, so the fields are counted after its last ')'.
bool parse_stat(const std::string& text, ProcessCpu& p, double tick) {
  const auto open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  p.name = text.substr(open + 1, close - open - 1);
  std::vector<std::string_view> fields;
  std::string_view rest(text);
  rest.remove_prefix(close + 1);
  while (!rest.empty()) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const auto end = rest.find(' ');
    fields.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  // After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  if (fields.size() < 15) return false;
  auto number = [](std::string_view s, long long& v) {
    return std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc();
  };
  long long ppid = 0, utime = 0, stime = 0;
  if (!number(fields[1], ppid) || !number(fields[11], utime) || !number(fields[12], stime)) return false;
  p.ppid = static_cast<pid_t>(ppid);
  p.cpu_seconds = static_cast<double>(utime + stime) * tick;
  long long cutime = 0, cstime = 0;
  if (number(fields[13], cutime) && number(fields[14], cstime))
    p.reaped_children_cpu_seconds = static_cast<double>(cutime + cstime) * tick;
  return true;
}

// argv[0]'s file name: runsc re-executes itself as "runsc-sandbox" and
// "runsc-gofer", whose comm is "exe".
std::string command_name(const outside_fs::path& dir, const std::string& comm) {
  const std::string cmdline = read_small_file(dir / "cmdline");
  const std::string first = cmdline.substr(0, cmdline.find('\0'));
  if (first.empty()) return comm;
  return outside_fs::path(first).filename().string();
}

std::map<pid_t, ProcessCpu> by_pid(const std::vector<ProcessCpu>& processes) {
  std::map<pid_t, ProcessCpu> m;
  for (const auto& p : processes) m[p.pid] = p;
  return m;
}

}  // namespace

std::vector<ProcessCpu> read_processes(const outside_fs::path& proc) {
  const double tick = 1.0 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
  std::vector<ProcessCpu> out;
  std::error_code ec;
  for (const auto& entry : outside_fs::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    ProcessCpu p;
    long long pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc()) continue;
    p.pid = static_cast<pid_t>(pid);
    if (!parse_stat(read_small_file(entry.path() / "stat"), p, tick)) continue;  // ended meanwhile
    p.name = command_name(entry.path(), p.name);
    out.push_back(std::move(p));
  }
  name_sandboxes_by_their_place(out);
  return out;
}

void name_sandboxes_by_their_place(std::vector<ProcessCpu>& processes) {
  std::map<pid_t, const ProcessCpu*> pid_to;
  for (const auto& p : processes) pid_to[p.pid] = &p;
  std::set<pid_t> with_stub_children;
  for (const auto& p : processes)
    if (p.name == "exe") with_stub_children.insert(p.ppid);
  for (auto& p : processes) {
    if (p.name != "exe" || !with_stub_children.count(p.pid)) continue;
    const auto parent = pid_to.find(p.ppid);
    if (parent != pid_to.end() && parent->second->name == "runsc") p.name = "runsc-sandbox";
  }
}

void keep_names_read_at_start(std::vector<ProcessCpu>& now, const std::map<pid_t, ProcessCpu>& begin) {
  for (auto& p : now)
    if (const auto before = begin.find(p.pid);
        before != begin.end() && p.name == "exe" && before->second.ppid == p.ppid)
      p.name = before->second.name;
}

bool is_runtime_helper(const std::string& environment, const std::string& name) {
  if (environment == "docker") return name.rfind("containerd-shim", 0) == 0 || name == "containerd" || name == "dockerd";
  if (environment == "podman") return name == "conmon";
  return false;
}

namespace {

// dlcbench-probe, beside dlcbench or bound into a container as
// /tmp/.dlcbench-probe (runtimes/environment.h).
bool is_probe(const ProcessCpu& process) {
  static const std::string in_container = std::filesystem::path(kContainerProbePath).filename().string();
  return process.name == "dlcbench-probe" || process.name == in_container;
}

}  // namespace

bool runs_worker_code(const ProcessCpu& process, const std::map<pid_t, ProcessCpu>& all) {
  // dlcbench-worker; "dlcbench" for a worker started by a dlcbench before
  // the worker was a program of its own.
  if (process.name == "dlcbench-worker" || process.name == "dlcbench" || is_probe(process)) return true;
  // A user's command and whatever it starts: the probe's descendants.
  std::set<pid_t> ancestors;
  for (auto it = all.find(process.ppid); it != all.end() && ancestors.insert(it->first).second;
       it = all.find(it->second.ppid))
    if (is_probe(it->second)) return true;
  if (process.name != "exe") return false;
  // gVisor's ptrace stubs: forked by the sandbox, then from one another,
  // each with the application's address space (so no command line of
  // their own, and the kernel's comm "exe").
  std::set<pid_t> seen;
  for (auto it = all.find(process.ppid); it != all.end() && seen.insert(it->first).second;
       it = all.find(it->second.ppid)) {
    if (it->second.name == "runsc-sandbox") return true;
    if (it->second.name != "exe") return false;
  }
  return false;
}

std::set<pid_t> environment_processes(const std::vector<ProcessCpu>& processes, pid_t orchestrator,
                                      const std::string& environment) {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& p : processes) children[p.ppid].push_back(p.pid);
  std::set<pid_t> found;
  std::vector<pid_t> todo;
  for (const auto& p : processes)
    if (is_runtime_helper(environment, p.name)) todo.push_back(p.pid);
  if (const auto it = children.find(orchestrator); it != children.end())
    todo.insert(todo.end(), it->second.begin(), it->second.end());
  while (!todo.empty()) {
    const pid_t pid = todo.back();
    todo.pop_back();
    if (pid == orchestrator || !found.insert(pid).second) continue;
    if (const auto it = children.find(pid); it != children.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return found;
}

void OutsideAccounting::start() {
  Stopwatch clock;
  phase_clock_.restart();
  machine_begin_ = parse_proc_stat(read_small_file("/proc/stat"));
  fine_begin_ = read_fine_machine_cpu();
  // The orchestrator's own CPU time: it reads the worker's lines and writes
  // results.jsonl while the phase runs.
  orchestrator_cpu_begin_ = process_cpu_seconds();
  const auto all = read_processes();
  const auto env = environment_processes(all, getpid(), environment_);
  begin_.clear();
  for (const auto& p : all)
    if (env.count(p.pid)) begin_[p.pid] = p;
  started_ = true;
  read_seconds_ = clock.seconds();
}

namespace {

// The machine's CPU time over a phase of `phase_seconds`, from the readings
// at its two ends (/proc/stat's ticks, the root cgroup's usage where it can
// be read), and what of it neither the environment (`environment_cpu`) nor
// the orchestrator used: the foreign CPU time, with what the readings'
// rounding alone can make of nothing.
nlohmann::json machine_reading(const std::pair<MachineCpuTicks, MachineCpuTicks>& ticks,
                               const std::pair<std::optional<FineMachineCpu>, std::optional<FineMachineCpu>>& fine_readings,
                               double phase_seconds, double tick, double environment_cpu, double orchestrator_cpu,
                               int tick_readings) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const double busy_ticks = static_cast<double>(ticks.second.busy - ticks.first.busy) * tick;
  // /proc/stat's busy line is five fields, each truncated to a tick, at
  // both ends: on a phase of a few ms that alone reads as 100% of a CPU.
  // The root cgroup's usage counts the same time in microseconds; where it
  // disagrees with the ticks by more than they can be off, it is not the
  // machine's (a cgroup namespace) and the ticks stand.
  const auto fine = fine_busy_seconds(fine_readings.first, fine_readings.second, busy_ticks, tick,
                                      0.001 * phase_seconds * static_cast<double>(cpus));
  const double busy = fine ? *fine : busy_ticks;
  const std::string source = fine ? fine_readings.second->source : std::string("/proc/stat (clock ticks)");
  // What the readings alone can make of nothing: the processes' ticks, and
  // /proc/stat's busy line (five fields at both ends) where it stands.
  const double uncertainty = tick_rounding_seconds(tick, (fine ? 0 : 10) + tick_readings);
  return {{"phase_seconds", phase_seconds},
          {"cpus", cpus},
          {"busy_seconds", busy},
          {"busy_source", source},
          {"steal_seconds", static_cast<double>(ticks.second.steal - ticks.first.steal) * tick},
          // One field, truncated at both ends: within a tick.
          {"steal_uncertainty_seconds", tick},
          {"orchestrator_cpu_seconds", orchestrator_cpu},
          // What the readings' rounding alone can make of nothing:
          // the foreign time can come out that far below zero on
          // a quiet machine, or above it.
          {"foreign_cpu_seconds", busy - environment_cpu - orchestrator_cpu},
          {"foreign_uncertainty_seconds", uncertainty}};
}

}  // namespace

nlohmann::json OutsideAccounting::finish(std::optional<double> worker_cpu_inside) const {
  Stopwatch clock;
  nlohmann::json out = nlohmann::json::object();
  if (!started_) {
    out["unavailable"] = "the worker did not say when its measured phase began";
    return out;
  }
  const double phase_seconds = phase_clock_.seconds();
  const auto machine_end = parse_proc_stat(read_small_file("/proc/stat"));
  const auto fine_end = read_fine_machine_cpu();
  const double orchestrator_cpu = process_cpu_seconds() - orchestrator_cpu_begin_;
  auto all = read_processes();
  keep_names_read_at_start(all, begin_);
  const auto env = environment_processes(all, getpid(), environment_);
  const auto now = by_pid(all);
  std::map<std::string, double> by_name;
  double total = 0, worker = 0;
  // Clock-tick readings taken away from the machine's busy time: utime and
  // stime, each truncated to a tick, at one end or both.
  int tick_readings = 0;
  for (pid_t pid : env) {
    const ProcessCpu& p = now.at(pid);
    if (worker_cpu_inside && runs_worker_code(p, now)) continue;  // counted inside
    const auto before = begin_.find(pid);
    tick_readings += before == begin_.end() ? 2 : 4;
    // A process started during the phase used all its CPU time in it.
    double used = before == begin_.end() ? p.cpu_seconds : p.cpu_seconds - before->second.cpu_seconds;
    // The probe's command, ended and reaped by now: its CPU time is the probe's children's.
    if (is_probe(p))
      used += p.reaped_children_cpu_seconds - (before == begin_.end() ? 0.0 : before->second.reaped_children_cpu_seconds);
    by_name[p.name] += used;
    total += used;
    if (runs_worker_code(p, now)) worker += used;
  }
  if (worker_cpu_inside) {
    by_name["(worker, counted inside)"] = *worker_cpu_inside;
    worker = *worker_cpu_inside;
    total += worker;
  }
  std::size_t ended = 0;
  for (const auto& [pid, p] : begin_)
    if ((!now.count(pid) || !env.count(pid)) && !(worker_cpu_inside && runs_worker_code(p, begin_))) ++ended;
  out["environment_cpu_seconds"] = total;
  out["worker_cpu_seconds"] = worker;
  out["helpers_cpu_seconds"] = total - worker;
  out["by_command"] = by_name;
  // Ended during the phase: their time since the start is not counted.
  out["processes_ended_uncounted"] = ended;
  // /proc counts each process in clock ticks.
  out["tick_seconds"] = 1.0 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
  if (machine_begin_ && machine_end && sysconf(_SC_NPROCESSORS_ONLN) > 0)
    out["machine"] = machine_reading({*machine_begin_, *machine_end}, {fine_begin_, fine_end}, phase_seconds,
                                     out["tick_seconds"].get<double>(), total, orchestrator_cpu, tick_readings);
  else
    out["machine_unavailable"] = "/proc/stat has no cpu line here";
  out["read_seconds"] = read_seconds_ + clock.seconds();
  return out;
}

}  // namespace dlcbench
