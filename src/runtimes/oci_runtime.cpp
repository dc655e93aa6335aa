#include "runtimes/oci_runtime.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "model/container_options.h"
#include "runtimes/image_builder.h"
#include "runtimes/oci_bundle.h"
#include "runtimes/seccomp_profile.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

class OciEnvironment : public Environment {
 public:
  OciEnvironment(const EnvironmentRequest& request, EnvironmentContext context)
      : name_(request.name),
        context_(std::move(context)),
        options_(request.container) {}

  std::string name() const override { return name_; }

  void check() override {
    if (checked_) return;
    auto program = find_program(name_);
    if (!program)
      throw EnvironmentUnavailable(
          fmt::format("{} is not installed: run `apt-get install {}` (or scripts/install-deps.sh)", name_, name_));
    program_ = *program;
    if (geteuid() != 0)
      throw EnvironmentUnavailable(fmt::format(
          "{} runs bundles as root here (dlcbench writes no rootless user-namespace config): run dlcbench as root, "
          "or measure rootless containers with podman",
          name_));
    auto version = capture_output({program_, "--version"}, 30);
    if (!version.result.ok())
      throw EnvironmentUnavailable(fmt::format("`{} --version` failed: {}", name_, version.result.describe()));
    version_ = first_line(version.out);
    if (context_.command_only) {
      rootfs_ = command_rootfs(name_, options_.rootfs);
    } else if (!options_.rootfs.empty()) {
      rootfs_ = fs::absolute(options_.rootfs);
      const char* needed = context_.noop_only ? kImageNoopPath : kImageWorkerPath;
      if (!context_.probe_only && !fs::exists(rootfs_ / fs::path(needed).relative_path()))
        throw EnvironmentUnavailable(fmt::format("{}:rootfs={} holds no {}: point rootfs= at a root file system "
                                                 "with dlcbench installed there, or leave it out",
                                                 name_, options_.rootfs, needed));
    }
    // Their bundles have no seccomp filter unless asked: seccomp=default is
    // the container engines' default profile, as Docker and Podman apply it.
    if (!options_.seccomp.empty() && options_.seccomp != "unconfined") {
      const fs::path profile = options_.seccomp == "default" ? fs::path(kEngineDefaultSeccompProfile)
                                                             : fs::path(options_.seccomp);
      try {
        seccomp_ = load_engine_seccomp_profile(profile, oci_default_capabilities());
      } catch (const DataError& e) {
        throw EnvironmentUnavailable(fmt::format("{}:seccomp={}: {}", name_, options_.seccomp, e.what()));
      }
    }
    checked_ = true;
  }

  void prepare() override {
    check();
    if (name_ == "crun") hide_cgroup2_controllers_if_hybrid();
    scratch_.emplace(scratch_prefix());
    state_ = scratch_->path() / "state";
    bundles_ = scratch_->path() / "bundles";
    fs::create_directories(state_);
    fs::create_directories(bundles_);
    if (!options_.rootfs.empty()) {
      // runsc makes the probe's mount point in the user's root file system
      // itself (its /tmp tmpfs notwithstanding): one it made goes in finish().
      std::error_code error;
      if (!fs::exists(fs::symlink_status(probe_mount_point(), error)))
        probe_mount_point_to_remove_ = probe_mount_point();
    } else if (options_.rootfs.empty()) {
      rootfs_ = scratch_->path() / "rootfs";
      write_rootfs(image_content_for(context_.worker_exe, context_.noop_only, context_.image_extras), rootfs_);
    }
    if (gpu_method(name_, options_.gpus, context_.gpu) != "none") {
      // Without a GPU here the GPU cases fail with the worker's own "no GPU"
      // message; the environment still runs the CPU cases.
      try {
        gpu_ = host_gpu_passthrough();
        gpu_note_ = "dlcbench passes the /dev/nvidia* device nodes and binds the driver libraries read-only";
      } catch (const EnvironmentUnavailable& e) {
        gpu_note_ = std::string("no GPU passed: ") + e.what();
      }
    }
    check_starts();
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string& instance) const override {
    const fs::path bundle = bundles_ / instance;
    fs::create_directories(bundle);
    std::ofstream(bundle / "config.json") << oci_config(bundle_request(launch, instance)).dump(2) << "\n";

    LaunchCommand c;
    c.argv = global({"run", "--bundle", bundle.string(), instance});
    if (name_ == "runsc" && !launch.trace_calls_to.empty()) {
      // Global flags, before the subcommand; the log's folder ends in "/"
      // so that runsc names one file per process (boot, gofer, run).
      const auto run = std::find(c.argv.begin(), c.argv.end(), "run");
      c.argv.insert(run, {"--strace", "--debug-log=" + launch.trace_calls_to.string() + "/"});
    }
    c.hide_files = hide_files_;
    return c;
  }

  void cleanup(const std::string& instance) override {
    // `run` in the foreground deletes its container when the process ends;
    // after a timeout or a kill of the client it may not have.
    capture_output(global({"kill", instance, "KILL"}), 30, hide_files_);
    capture_output(global({"delete", "--force", instance}), 30, hide_files_);
    std::error_code ec;
    fs::remove_all(bundles_ / instance, ec);
  }

  std::vector<std::string> remove_leftovers() override {
    // Containers of this session that a cleanup missed, then what a session
    // of this run killed with SIGKILL left: its containers (runc's child
    // outlives it) and its folder with their root file system.
    std::vector<std::string> removed = state_.empty() ? std::vector<std::string>{} : remove_containers_in(state_);
    const fs::path own = scratch_ ? scratch_->path() : fs::path();
    const auto folders = remove_scratch_dirs_left(scratch_prefix(), own, [&](const fs::path& dir) {
      for (auto& name : remove_containers_in(dir / "state")) removed.push_back(std::move(name));
    });
    removed.insert(removed.end(), folders.begin(), folders.end());
    return removed;
  }

  ServeRoute prepare_serving() override {
    return options_.network == "host" ? host_network_route() : Environment::prepare_serving();
  }

  void finish() override {
    scratch_.reset();
    // Only the empty file a runtime made: never what the user put there.
    std::error_code error;
    const fs::path& made = probe_mount_point_to_remove_;
    if (!made.empty() && fs::is_regular_file(fs::symlink_status(made, error)) && fs::file_size(made, error) == 0)
      fs::remove(made, error);
  }

  nlohmann::json describe() const override {
    return {{"name", name_},
            {"program", program_},
            {"version", version_},
            {"rootfs", options_.rootfs.empty() ? "built by dlcbench from its binary and libraries" : rootfs_.string()},
            {"command", global({"run", "--bundle", "<bundle>", "<instance>"}, "<state>")},
            {"config", example_config()},
            {"adjustments", adjustments_},
            {"gpu", {{"method", gpu_ ? "nodes" : "none"},
                     {"note", gpu_note_},
                     {"passthrough", gpu_ ? gpu_->to_json() : nlohmann::json()}}}};
  }

 private:
  // The runtime with its global flags (state folder; gVisor's platform and
  // network stack) and then `args`.
  std::vector<std::string> global(std::vector<std::string> args, const std::string& state = "") const {
    std::vector<std::string> argv = {program_, "--root", state.empty() ? state_.string() : state};
    if (name_ == "runsc") {
      // "none": a loopback-only stack in the sandbox, like the other
      // runtimes' fresh network namespace; "host": the host's own stack.
      argv.push_back("--platform=" + (options_.platform.empty() ? std::string("ptrace") : options_.platform));
      argv.push_back("--network=" + options_.network);
      if (!options_.file_access.empty()) argv.push_back("--file-access=" + options_.file_access);
      if (!options_.overlay.empty() && options_.overlay != "none")
        argv.push_back("--overlay2=" + options_.overlay + ":memory");
      // gVisor applies a bundle's seccomp filter inside the sandbox only
      // when asked; its Sentry filters its own host calls either way.
      if (!seccomp_.is_null()) argv.push_back("--oci-seccomp");
    }
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  std::string scratch_prefix() const { return fmt::format("dlcbench-{}-{}", name_, context_.run_id); }

  std::vector<std::string> remove_containers_in(const fs::path& state) const {
    std::vector<std::string> removed;
    if (!fs::is_directory(state)) return removed;
    auto listed = capture_output(global({"list", "--quiet"}, state.string()), 30, hide_files_);
    if (!listed.result.ok())
      throw std::runtime_error(
          fmt::format("{} list in {} failed: {}", name_, state.string(), first_line(listed.result.stderr_tail)));
    std::stringstream names(listed.out);
    for (std::string name; std::getline(names, name);) {
      if (name.empty()) continue;
      capture_output(global({"kill", name, "KILL"}, state.string()), 30, hide_files_);
      auto deleted = capture_output(global({"delete", "--force", name}, state.string()), 30, hide_files_);
      if (!deleted.result.ok())
        throw std::runtime_error(fmt::format("{} delete --force {} failed: {}", name_, name,
                                             first_line(deleted.result.stderr_tail)));
      removed.push_back(name);
    }
    return removed;
  }

  // One container that exits at once: finds a runtime that cannot start
  // containers here before any measurement relies on it.
  void check_starts() {
    WorkerLaunch noop;
    noop.program = WorkerLaunch::Program::noop;
    const std::string instance = fmt::format("dlcbench-{}-check-{}", context_.run_id, getpid());
    if (!context_.noop_only && !fs::exists(rootfs_ / fs::path(kImageNoopPath).relative_path())) return;
    auto result = capture_output(command(noop, instance).argv, 60, hide_files_);
    cleanup(instance);
    if (!result.result.ok())
      throw EnvironmentUnavailable(fmt::format("{} cannot start a container here: {}\n{}{}", name_,
                                               result.result.describe(), result.result.stderr_tail,
                                               hint(result.result.describe() + result.result.stderr_tail)));
  }

  fs::path probe_mount_point() const { return rootfs_ / fs::path(kContainerProbePath).relative_path(); }

  // What goes into a launch's config.json.
  OciBundleRequest bundle_request(const WorkerLaunch& launch, const std::string& instance) const {
    OciBundleRequest request;
    request.rootfs = rootfs_;
    request.options = options_;
    request.cgroups_path = context_.cgroup_parent + "/" + instance;
    request.container_name = name_;
    request.seccomp = seccomp_;
    request.process.env = launch.env;
    if (launch.program == WorkerLaunch::Program::noop) {
      request.process.args = {kImageNoopPath};
      return request;
    }
    if (gpu_ && launch.gpu) request.gpu = &*gpu_;
    if (launch.program == WorkerLaunch::Program::command) {
      // The probe is bound over a file in /tmp (a tmpfs here), so nothing
      // is created in the user's root file system for it.
      request.binds.push_back({fs::absolute(probe_program_beside(context_.worker_exe)).string(), kContainerProbePath, true});
      const CommandPlacement placed = place_command_in_container(launch);
      for (const auto& m : placed.mounts) request.binds.push_back({m.host, m.container, m.read_only});
      request.process.args = {kContainerProbePath};
      const auto args = probe_arguments(launch, placed.data, placed.workdir);
      request.process.args.insert(request.process.args.end(), args.begin(), args.end());
      request.process.env = command_variables(launch, placed.data, placed.workdir);
      return request;
    }
    request.process.args = {kImageWorkerPath};
    request.process.args.insert(request.process.args.end(), launch.worker_args.begin(), launch.worker_args.end());
    request.process.args.push_back("--data");
    if (launch.data == "synthetic") {
      request.process.args.push_back("synthetic");
    } else {
      request.data = fs::absolute(launch.data).string();
      request.process.args.push_back("/data");
    }
    if (!launch.io_target.empty()) {
      const std::string io_path = io_path_for(launch.io_target, true);
      request.io_target = launch.io_target;
      request.io_path = io_path;
      request.process.args.push_back("--path");
      request.process.args.push_back(io_path);
    }
    return request;
  }

  // The config.json of a worker launch, as written into each bundle (only
  // the worker's arguments differ between launches).
  nlohmann::json example_config() const {
    WorkerLaunch example;
    example.worker_args = {"worker", "..."};
    example.data = "/<data folder>";
    example.env = {{"<thread settings>", "..."}};
    return oci_config(bundle_request(example, "<instance>"));
  }

  // crun 1.8 refuses a hybrid layout (cgroup v1 controllers, plus a cgroup2
  // mount at /sys/fs/cgroup/unified) when that cgroup2 mount has controllers
  // ("drop all controllers from cgroupv2"). It uses only the v1 hierarchies
  // there, so crun runs in a private mount namespace in which the cgroup2
  // mount's cgroup.controllers reads as empty. Nothing outside changes.
  void hide_cgroup2_controllers_if_hybrid() {
    const fs::path controllers = "/sys/fs/cgroup/unified/cgroup.controllers";
    if (fs::exists("/sys/fs/cgroup/cgroup.controllers") || !fs::exists(controllers)) return;
    std::ifstream in(controllers);
    std::string first;
    if (!(in >> first)) return;  // no controllers: crun accepts it as it is
    hide_files_ = {controllers.string()};
    adjustments_.push_back(fmt::format(
        "a private mount namespace hiding {} (it lists {}...): crun 1.8 refuses hybrid cgroup layouts "
        "whose cgroup2 mount has controllers",
        controllers.string(), first));
  }

  std::string hint(const std::string& error) const {
    if (name_ == "crun" && error.find("hybrid") != std::string::npos)
      return "crun 1.8 cannot use this machine's cgroup layout (cgroup v1 with a cgroup2 mount that has "
             "controllers): use runc here, or boot with a pure cgroup v2 layout "
             "(systemd.unified_cgroup_hierarchy=1)";
    if (name_ == "runsc" && options_.platform == "kvm")
      return "gVisor's KVM platform needs /dev/kvm and hangs where the machine is itself a VM without nested "
             "virtualisation: use runsc:platform=ptrace (`dlcbench doctor` tries both)";
    if (error.find("private mount namespace") != std::string::npos)
      return "hiding a file needs CAP_SYS_ADMIN: run dlcbench as root with that capability, or use runc";
    return "";
  }

  std::string name_;
  EnvironmentContext context_;
  ContainerOptions options_;
  bool checked_ = false;  // check() passed, and is not done twice
  std::string program_;
  std::string version_;
  std::optional<ScratchDir> scratch_;
  nlohmann::json seccomp_;             // linux.seccomp; null: none
  std::optional<GpuPassthrough> gpu_;  // GPU cases: the host's device nodes and driver
  std::string gpu_note_;
  fs::path state_, bundles_, rootfs_;
  fs::path probe_mount_point_to_remove_;  // in the user's root file system, if it was not there before
  std::vector<std::string> hide_files_;
  std::vector<std::string> adjustments_;
};

}  // namespace

std::unique_ptr<Environment> make_oci_environment(const EnvironmentRequest& request,
                                                  const EnvironmentContext& context) {
  return std::make_unique<OciEnvironment>(request, context);
}

}  // namespace dlcbench
