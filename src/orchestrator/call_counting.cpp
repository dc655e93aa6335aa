#include "orchestrator/call_counting.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/scratch_dir.h"
#include "core/process.h"
#include "core/syscall_counter.h"
#include "orchestrator/outside_accounting.h"
#include "orchestrator/plan.h"
#include "workloads/loader/loader.h"
#include "workloads/loader/worker_pool.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

// The worker's processes among the environment's, read from /proc: the
// dlcbench-worker program (its threads are counted, and what they start),
// or under gVisor the stubs that run its code (`stubs`). Empty with the
// reason when there is none the host's kernel runs.
std::vector<pid_t> worker_processes(const std::string& environment, std::string& why_none, bool stubs = false) {
  const auto all = read_processes();
  const auto env = environment_processes(all, getpid(), environment);
  std::map<pid_t, ProcessCpu> by_pid;
  for (const auto& p : all) by_pid[p.pid] = p;
  std::vector<pid_t> workers;
  bool sandboxed = false;
  for (const auto& p : all) {
    if (!env.count(p.pid)) continue;
    // A user's command and the system-call table run in dlcbench-probe,
    // which a container sees as /tmp/.dlcbench-probe (environment.h:
    // kContainerProbePath).
    const bool worker = p.name == "dlcbench-worker" || p.name == "dlcbench-probe" || p.name == ".dlcbench-probe";
    if (stubs ? p.name == "exe" && runs_worker_code(p, by_pid) : worker) workers.push_back(p.pid);
    if (p.name == "runsc-sandbox") sandboxed = true;
  }
  if (workers.empty())
    why_none = sandboxed ? "gVisor runs the worker's system calls in its own kernel (the Sentry): they never enter "
                           "the host's, so its tracepoint cannot count them"
                         : "the worker's process was not found among the environment's processes";
  return workers;
}

nlohmann::json counts_record(const CallCounts& counts, int batches, const std::string& method) {
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& [kind, n] : counts.by_kind) by_kind[kind] = n;
  nlohmann::json record = {{"type", "call_counts"}, {"method", method},         {"batches", batches},
                           {"threads", counts.threads}, {"syscalls", counts.syscalls}, {"by_kind", by_kind}};
  if (counts.faults_counted) {
    record["page_faults"] = counts.page_faults;
    record["context_switches"] = counts.context_switches;
  }
  return record;
}

constexpr const char* kTracepointMethod = "perf_event_open: raw_syscalls:sys_enter per thread, filtered by call number";
constexpr const char* kStraceMethod = "runsc --strace: the calls the application entered in gVisor's kernel";

// The sandbox's log among those runsc wrote in `folder`.
std::optional<std::filesystem::path> boot_log(const std::filesystem::path& folder) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".boot") != std::string::npos) return entry.path();
  }
  return std::nullopt;
}

}  // namespace

std::optional<CallCounts> calls_in_strace_log(std::istream& log) {
  // "I1207 16:43:35.601423    7372 strace.go:559] [   1:   1] python3 E getppid()":
  // after the thread ids and the command, E (entry) or X (exit), the call's name.
  CallCounts counts;
  counts.faults_counted = false;
  for (const auto& k : counted_call_kinds()) counts.by_kind[k.name] = 0;
  std::set<std::string> threads;
  bool open = false, closed = false;
  for (std::string line; std::getline(log, line);) {
    const auto strace = line.find("strace.go");
    if (strace == std::string::npos) continue;
    const auto ids = line.find("] [", strace);
    if (ids == std::string::npos) continue;
    const auto ids_end = line.find(']', ids + 3);
    const auto entry = line.find(" E ", ids_end == std::string::npos ? ids : ids_end);
    if (ids_end == std::string::npos || entry == std::string::npos) continue;
    const auto name_end = line.find('(', entry + 3);
    if (name_end == std::string::npos) continue;
    const std::string name = line.substr(entry + 3, name_end - entry - 3);
    if (!open) {
      open = name == "access" && line.find(kCountWindowOpen, name_end) != std::string::npos;
      continue;
    }
    if (name == "access" && line.find(kCountWindowClose, name_end) != std::string::npos) {
      closed = true;
      break;
    }
    ++counts.syscalls;
    threads.insert(line.substr(ids + 3, ids_end - ids - 3));
    if (const std::string kind = call_kind_of_name(name); !kind.empty()) ++counts.by_kind[kind];
  }
  if (!open || !closed) return std::nullopt;
  counts.threads = threads.size();
  return counts;
}

bool counts_calls(const CaseSpec& spec) {
  // A command measured by --metric is timed per iteration, after its
  // start-up; its count would be over the whole run, so it is not counted.
  if (spec.is_command()) return spec.command.metric.source == MetricSpec::Source::wall_time;
  return spec.workload != kStartupWorkload && !spec.serves();
}

nlohmann::json count_calls_launch(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                                  const std::string& instance, const ScheduleOptions& options) {
  const bool loader = spec.workload == kLoaderWorkload;
  WorkerLaunch launch;
  if (spec.is_command()) {
    // The probe runs the command once between its marks: one "batch".
    launch = command_launch_of(spec, plan.data);
    launch.count_pause = kCountPauseSeconds;
  } else if (spec.runs_in_probe()) {
    launch = probe_work_launch(spec, options.worker_env, kCountPauseSeconds);
  } else {
    std::vector<std::string> args = spec.worker_args();
    args.insert(args.end(), {"--hold-samples", "--count-pause", fmt::format("{}", kCountPauseSeconds)});
    launch = worker_launch(plan, spec, std::move(args), options, instance);
  }
  const int batches = spec.is_command() ? 1 : spec.iters;
  // gVisor's calls never reach the host's kernel: runsc traces them itself.
  const bool traced = env.environment->name() == "runsc";
  std::optional<ScratchDir> trace;
  if (traced) {
    trace.emplace("dlcbench-strace");
    launch.trace_calls_to = trace->path();
  }
  const ProcessSpec process = env.environment->command(launch, instance).process(plan.case_timeout_seconds,
                                                                                   options.cancel);
  SyscallCounter counter;
  bool counting = false;
  std::optional<nlohmann::json> record;
  std::optional<CallCounts> stub_faults;  // gVisor: the stubs' page faults over the window
  std::string why_not;
  const ProcessResult result = run_process(process, [&](std::string_view line) {
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) return;
    const std::string type = parsed.value("type", "");
    if (traced) {
      // The calls come from the trace when the launch has ended; the stubs
      // that run the worker's code are counted from the host's kernel.
      std::string no_stubs;
      if (type == "phase") {
        const auto stubs = worker_processes(env.environment->name(), no_stubs, true);
        try {
          if (!stubs.empty()) counter.open(stubs, /*faults_only=*/true), counting = true;
        } catch (const IoError&) {
        }
      } else if (type == "phase_end" && counting) {
        counting = false;
        try {
          stub_faults = counter.close();
        } catch (const IoError&) {
        }
      }
      return;
    }
    if (type == "phase" && why_not.empty()) {
      const auto workers = worker_processes(env.environment->name(), why_not);
      if (workers.empty()) return;
      try {
        counter.open(workers);
        counting = true;
      } catch (const IoError& e) {
        why_not = e.what();
      }
    } else if (type == "phase_end" && counting) {
      counting = false;
      try {
        record = counts_record(counter.close(), parsed.value("batches", batches), kTracepointMethod);
      } catch (const IoError& e) {
        why_not = e.what();
      }
    }
  });
  if (loader) (void)loader::remove_segments(instance);  // a killed loader's batches in /dev/shm
  if (traced && result.ok()) {
    const auto log = boot_log(trace->path());
    std::ifstream in(log ? *log : std::filesystem::path());
    if (const auto counts = log ? calls_in_strace_log(in) : std::nullopt) {
      nlohmann::json traced_record = counts_record(*counts, batches, kStraceMethod);
      // The stubs' faults as the host's kernel takes them: most it resolves
      // itself against the sandbox's memory file, some it hands to the
      // Sentry, and which is which it does not say. They are recorded apart
      // from the trace's counts; a prediction prices them at the table's
      // fault kind, which takes its faults the same way
      // (analysis/prediction.cpp).
      if (stub_faults) {
        traced_record["stub_page_faults"] = stub_faults->page_faults;
        traced_record["stub_context_switches"] = stub_faults->context_switches;
      }
      return traced_record;
    }
    why_not = log ? "runsc's trace has no window marked by the worker" : "runsc wrote no trace of the sandbox";
  }
  if (record && result.ok()) return *record;
  if (why_not.empty())
    why_not = result.ok() ? "the worker never said its measured phase ended"
                          : fmt::format("the counting launch failed: {}", result.describe());
  return {{"type", "call_counts"}, {"unavailable", why_not}};
}

}  // namespace dlcbench
