// The environment's processes read from outside, over a launch's measured
// phase: the CPU time of the runtime's own helpers (containerd-shim and the
// Docker daemon, conmon, gVisor's sandbox and gofer, the runtime client)
// next to the worker's own. Inside, a worker sees only itself, and inside
// gVisor not even that as the host counts it: the sandbox's kernel runs in
// the host's processes. What the helpers use is part of what the
// environment costs, never disturbance.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/accounting.h"
#include "core/timer.h"

namespace dlcbench {

struct ProcessCpu {
  pid_t pid = 0, ppid = 0;
  std::string name;    // argv[0]'s file name ("runsc-sandbox"), else the kernel's comm
  double cpu_seconds = 0;  // user + system
  // Of its children it has waited for (cutime + cstime): dlcbench-probe's
  // command has ended and been reaped when the probe's accounting line
  // arrives, so its CPU time is there.
  double reaped_children_cpu_seconds = 0;
};

// Every process under `proc` (skipping those that end while it reads).
std::vector<ProcessCpu> read_processes(const std::filesystem::path& proc = "/proc");

// A command line read at the start names the same process (same pid and
// parent) at the end when the end's reading found only the comm "exe":
// under load the kernel may fail to read the arguments of runsc's sandbox,
// and by its comm alone it would pass for one of gVisor's stubs.
void keep_names_read_at_start(std::vector<ProcessCpu>& now, const std::map<pid_t, ProcessCpu>& begin);

// Where neither reading could name it: runsc's sandbox by its place in the
// tree, an "exe" started by the runsc client ("runsc") that has started
// "exe" stubs of its own (the gofer starts none). read_processes applies it.
void name_sandboxes_by_their_place(std::vector<ProcessCpu>& processes);

// The helpers an engine leaves running beside its containers, by name:
// for docker containerd-shim (any version), containerd and dockerd; for
// podman conmon. The OCI runtimes' processes are the orchestrator's own
// descendants.
bool is_runtime_helper(const std::string& environment, const std::string& name);

// The processes of an environment: the orchestrator's descendants (the
// runtime client, runc's or runsc's children, the host's worker), the
// engine's helpers and their descendants (a container's processes). Not the
// orchestrator itself.
std::set<pid_t> environment_processes(const std::vector<ProcessCpu>& processes, pid_t orchestrator,
                                      const std::string& environment);

// Of those, the ones that run the worker's own code: the dlcbench worker,
// dlcbench-probe and the user's command it runs (its descendants), or under
// gVisor's ptrace platform the stub processes the sandbox runs the
// application in (its descendants named "exe"). The rest are helpers.
bool runs_worker_code(const ProcessCpu& process, const std::map<pid_t, ProcessCpu>& all);

class OutsideAccounting {
 public:
  explicit OutsideAccounting(std::string environment) : environment_(std::move(environment)) {}
  // When the worker says its measured phase begins.
  void start();
  // When its accounting line arrives: the "outside" object it gains: the
  // environment's CPU time, the worker's and the helpers', by command; and
  // the machine's, read at the same two moments: its busy and stolen CPU
  // time, the orchestrator's own, and what is left, the CPU time of
  // processes that are neither the environment's nor dlcbench's (what
  // analysis/disturbance.h judges a launch by).
  // `worker_cpu_inside`: the worker's CPU time over the phase as it counted
  // it itself. dlcbench-probe counts its command's whole tree, which may
  // have ended, and the probe with it, before this reads /proc: then the
  // processes that run worker code are not read here, and this is their time.
  nlohmann::json finish(std::optional<double> worker_cpu_inside = std::nullopt) const;
  bool started() const { return started_; }

 private:
  std::string environment_;
  std::map<pid_t, ProcessCpu> begin_;
  double read_seconds_ = 0;
  bool started_ = false;
  std::optional<MachineCpuTicks> machine_begin_;
  std::optional<FineMachineCpu> fine_begin_;  // the root cgroup's usage, where it can be read
  double orchestrator_cpu_begin_ = 0;
  Stopwatch phase_clock_;  // from the phase's start
};

}  // namespace dlcbench
