// An environment runs the worker: the bare host, or a container runtime.
// Each turns "run the worker with these arguments" into an argument vector;
// the scheduler starts it and reads its JSON lines.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case_spec.h"
#include "core/command_spec.h"
#include "core/companion_programs.h"
#include "core/process.h"
#include "model/environment_request.h"
#include "runtimes/image_builder.h"

namespace dlcbench {

struct WorkerLaunch {
  // worker: the dlcbench binary with worker_args and --data;
  // noop: a static program that exits at once (the startup workload);
  // command: a user's command under dlcbench-probe.
  enum class Program { worker, noop, command };
  Program program = Program::worker;
  std::vector<std::string> worker_args;  // "worker", "--workload", ...; no --data
  std::string data = "synthetic";        // "synthetic" or a folder on the host
  // Thread and BLAS settings, set identically in every environment.
  std::vector<std::pair<std::string, std::string>> env;
  // io-seq and io-lat: where they write ("rootfs", "tmpfs" or a host
  // folder); the environment mounts it and passes --path. Empty: none.
  std::string io_target;
  // A GPU case: the container gets the GPU (gpus= option). CPU cases run
  // as in a plan without GPU cases, so a broken GPU path cannot fail them.
  bool gpu = false;
  // Program::command: what to run, and where its data and working folder are.
  const CommandSpec* command = nullptr;
  // Program::command with a metric: the warm-up iterations, after which
  // the probe ends the command's start-up.
  int warmup = 0;
  // A serve case's server: the load generator on the host must reach it
  // (Environment::prepare_serving).
  bool serves = false;
  // A counting launch under gVisor: runsc writes every system call the
  // application makes (--strace) to its debug log in this folder, where the
  // host's tracepoint never sees them. Empty: no tracing (every timed launch).
  std::filesystem::path trace_calls_to{};
  // Program::command in a counting launch: the probe runs the command once
  // between its count marks and waits this long at each end (--count-pause).
  std::optional<double> count_pause{};
  // Program::command whose work is the probe's own (its system-call table:
  // "--syscall", "table", "--iters", ...) in place of `-- COMMAND`; the
  // command is then an empty CommandSpec (no data, working folder or
  // variables of its own).
  std::vector<std::string> probe_work{};
};

// How a serve case's load generator, on the host, reaches a server launched
// in an environment, and which way its packets go.
struct ServeRoute {
  enum class Reach {
    none,            // not from the host: why_not says why, and the fix
    loopback,        // the host's own network stack: 127.0.0.1
    server_address,  // the address of the server's interface in its own namespace, which it prints
  };
  Reach reach = Reach::none;
  std::string listen;  // the address the server binds
  enum class Path { none, host, veth, slirp };
  Path path = Path::none;
  std::string why_not;
};
const char* serve_path_name(ServeRoute::Path path);  // "host", "veth", "slirp", "none"
// Through the host's own network stack, at 127.0.0.1.
ServeRoute host_network_route();


// The launch of a user's command case (Program::command), for the preflight
// and the measured rounds alike.
WorkerLaunch command_launch_of(const CaseSpec& spec, const std::string& data);
// A case the probe runs itself (CaseSpec::runs_in_probe: the system-call
// table), with the thread settings every worker gets (`env`) and
// `count_pause` for its counting launch.
WorkerLaunch probe_work_launch(const CaseSpec& spec, std::vector<std::pair<std::string, std::string>> env,
                               std::optional<double> count_pause = std::nullopt);

// Where a container sees dlcbench-probe (bound read-only over a file in the
// container's /tmp, so nothing is written into the user's image or root
// file system).
inline constexpr const char* kContainerProbePath = "/tmp/.dlcbench-probe";

// Where a command's data and working folder are inside a container (or the
// chroot): the paths it sees, and the host folders to mount there.
struct CommandMount {
  std::string host, container;
  bool read_only = true;
};
struct CommandPlacement {
  std::string data, workdir;  // as the command sees them; empty: none
  std::vector<CommandMount> mounts;
};
CommandPlacement place_command_in_container(const WorkerLaunch& launch);
// The root file system a user's command runs in (rootfs= of runc, crun,
// runsc and chroot; charliecloud's image_dir=, the `option` its messages
// name), absolute. Throws EnvironmentUnavailable when none is given or it
// is not a folder.
std::filesystem::path command_rootfs(const std::string& environment, const std::string& rootfs,
                                     const std::string& option = "rootfs");

// The probe's arguments after the program: its working folder, the data
// folder (for its file system in the fingerprint), "--", and the command
// with {data} and {workdir} replaced by `data` and `workdir` (as the
// environment sees them; empty: none).
std::vector<std::string> probe_arguments(const WorkerLaunch& launch, const std::string& data,
                                         const std::string& workdir);
// The command's variables: those the user passed through, and DLCBENCH_DATA
// and DLCBENCH_WORKDIR where the environment puts them.
std::vector<std::pair<std::string, std::string>> command_variables(const WorkerLaunch& launch, const std::string& data,
                                                                   const std::string& workdir);

// Where each I/O target is, as the worker sees it.
inline constexpr const char* kHostRootfsIoPath = "/var/tmp";    // on the host's root file system
inline constexpr const char* kHostTmpfsIoPath = "/dev/shm";     // the host's tmpfs
inline constexpr const char* kContainerRootfsIoPath = "/var/tmp";  // in the container's own file system
inline constexpr const char* kContainerTmpfsIoPath = "/dlcbench-tmpfs";  // a tmpfs mounted for the worker
// The folder the worker writes in for `target`, on the host or in a container.
std::string io_path_for(const std::string& target, bool in_container);

struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // for the launched process
  std::vector<std::string> hide_files;                   // see ProcessSpec::hide_files

  ProcessSpec process(double timeout_seconds, const std::atomic<bool>* cancel) const {
    ProcessSpec spec;
    spec.argv = argv;
    spec.env = env;
    spec.timeout_seconds = timeout_seconds;
    spec.cancel = cancel;
    spec.hide_files = hide_files;
    return spec;
  }
};

struct EnvironmentContext {
  // The program the environment launches and builds its image around:
  // dlcbench-worker beside the dlcbench binary (dlcbench-allreduce for the
  // all-reduce); dlcbench-noop and dlcbench-probe are found beside it.
  std::filesystem::path worker_exe;
  std::string run_id;
  // Only the noop program is needed (doctor): images hold nothing else, so
  // they are built in a moment.
  bool noop_only = false;
  // Keep images dlcbench imported for this run (they are keyed by content,
  // so a later run of the same binary reuses them); by default they go.
  bool keep_images = false;
  // External tools the plan runs (dd, fio, hpcc, ...): images hold them too.
  std::vector<ImageExtra> image_extras;
  // The plan has GPU cases: containers get the GPU (runtimes/gpu_access.h).
  bool gpu = false;
  // Every case is a user's command (`run -- COMMAND`): images and root file
  // systems are the user's (image=, rootfs=) and need no dlcbench inside.
  bool command_only = false;
  // Every case runs in dlcbench-probe (commands and the system-call table):
  // an image or root file system the user gives needs no dlcbench-worker.
  bool probe_only = false;
  // `run --resume` of a run that imported its own image and was killed
  // before removing it: the image found in the store is that run's, so it
  // goes at the end as it would have (unless keep_images).
  bool adopt_image = false;
  // A cgroup (absolute, e.g. "/dlcbench-node-x") every container goes under,
  // as the host's workers do by inheritance: a node of a cluster run under a
  // CPU quota (cluster/node_quota.h). Empty: the runtime's default.
  std::string cgroup_parent{};
};

class Environment {
 public:
  virtual ~Environment() = default;
  virtual std::string name() const = 0;
  // Checks that the runtime can run workers here and builds what it needs
  // (an image, a root file system). Throws EnvironmentUnavailable with a
  // message that says how to fix it.
  virtual void prepare() = 0;
  // What prepare() would refuse that is known without building, starting or
  // changing anything: the program, the engine, an image named with image=,
  // a root file system, a seccomp profile. `run --dry-run` and every run
  // call it before the run starts; prepare() checks the same. Throws
  // EnvironmentUnavailable with the fix.
  virtual void check() {}
  // `instance` names this launch uniquely (the container name).
  virtual LaunchCommand command(const WorkerLaunch& launch, const std::string& instance) const = 0;
  // Before a serve case's launch: makes what the server's network needs
  // (a bridge network for docker, once) and says how the host reaches it.
  // The default: the environment's own network namespace, which the host
  // cannot reach.
  virtual ServeRoute prepare_serving();
  // Removes what a failed or stopped launch may have left (a container that
  // outlived its client).
  virtual void cleanup(const std::string& /*instance*/) {}
  // Removes what prepare() made for this run only (bundles, scratch files).
  virtual void finish() {}
  // Removes what a launch or a session of this run (same run id) left:
  // containers that outlived their client, and the scratch folders and
  // containers of a session killed with SIGKILL. Returns their names or
  // paths. `run --resume` calls it after prepare(), every run before finish().
  virtual std::vector<std::string> remove_leftovers() { return {}; }
  // What a run that no longer goes on left behind (`doctor --clean`, with
  // the context's run id set to it), called after check() alone: what
  // remove_leftovers() finds and, for the engines, the run's own image tag.
  virtual std::vector<std::string> remove_ended_run() { return remove_leftovers(); }
  // Runtime version, image, command template: recorded in the manifest.
  virtual nlohmann::json describe() const = 0;
};

std::unique_ptr<Environment> make_environment(const EnvironmentRequest& request,
                                              const EnvironmentContext& context);

}  // namespace dlcbench
