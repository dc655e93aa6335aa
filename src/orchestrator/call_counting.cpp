#include "orchestrator/call_counting.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
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
// dlcbench-worker program (its threads are counted, and what they start).
// Empty with the reason when there is none the host's kernel runs.
std::vector<pid_t> worker_processes(const std::string& environment, std::string& why_none) {
  const auto all = read_processes();
  const auto env = environment_processes(all, getpid(), environment);
  std::vector<pid_t> workers;
  bool sandboxed = false;
  for (const auto& p : all) {
    if (!env.count(p.pid)) continue;
    if (p.name == "dlcbench-worker") workers.push_back(p.pid);
    if (p.name == "runsc-sandbox") sandboxed = true;
  }
  if (workers.empty())
    why_none = sandboxed ? "gVisor runs the worker's system calls in its own kernel (the Sentry): they never enter "
                           "the host's, so its tracepoint cannot count them"
                         : "the worker's process was not found among the environment's processes";
  return workers;
}

nlohmann::json counts_record(const CallCounts& counts, int batches) {
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& [kind, n] : counts.by_kind) by_kind[kind] = n;
  return {{"type", "call_counts"},
          {"method", "perf_event_open: raw_syscalls:sys_enter per thread, filtered by call number"},
          {"batches", batches},
          {"threads", counts.threads},
          {"syscalls", counts.syscalls},
          {"by_kind", by_kind},
          {"page_faults", counts.page_faults},
          {"context_switches", counts.context_switches}};
}

}  // namespace

bool counts_calls(const CaseSpec& spec) {
  return spec.workload != kStartupWorkload && !spec.serves() && !spec.is_command();
}

nlohmann::json count_calls_launch(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                                  const std::string& instance, const ScheduleOptions& options) {
  std::vector<std::string> args = spec.worker_args();
  args.insert(args.end(), {"--hold-samples", "--count-pause", fmt::format("{}", kCountPauseSeconds)});
  auto env_vars = options.worker_env;
  const bool loader = spec.workload == kLoaderWorkload;
  if (loader) env_vars.emplace_back(kLoaderTokenVariable, instance);
  WorkerLaunch launch{WorkerLaunch::Program::worker, std::move(args), launch_data(plan, spec), std::move(env_vars),
                      spec.io_target, spec.device == "gpu"};
  const ProcessSpec process = env.environment->command(launch, instance).process(plan.case_timeout_seconds,
                                                                                   options.cancel);
  SyscallCounter counter;
  bool counting = false;
  std::optional<nlohmann::json> record;
  std::string why_not;
  const ProcessResult result = run_process(process, [&](std::string_view line) {
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) return;
    const std::string type = parsed.value("type", "");
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
        record = counts_record(counter.close(), parsed.value("batches", spec.iters));
      } catch (const IoError& e) {
        why_not = e.what();
      }
    }
  });
  if (loader) (void)loader::remove_segments(instance);  // a killed loader's batches in /dev/shm
  if (record && result.ok()) return *record;
  if (why_not.empty())
    why_not = result.ok() ? "the worker never said its measured phase ended"
                          : fmt::format("the counting launch failed: {}", result.describe());
  return {{"type", "call_counts"}, {"unavailable", why_not}};
}

}  // namespace dlcbench
