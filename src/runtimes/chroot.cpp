#include "runtimes/chroot.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "model/container_options.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

class ChrootEnvironment : public Environment {
 public:
  ChrootEnvironment(const EnvironmentRequest& request, EnvironmentContext context)
      : context_(std::move(context)), options_(request.container) {}

  std::string name() const override { return "chroot"; }

  // Nothing to build: preparing is checking.
  void prepare() override { check(); }
  // No network namespace of its own.
  ServeRoute prepare_serving() override { return host_network_route(); }
  void check() override {
    // Everything it runs runs in dlcbench-probe: a command, and the
    // system-call table beside one.
    if (!context_.probe_only)
      throw EnvironmentUnavailable(
          "chroot runs only a user's command (`dlcbench run --envs host,chroot:rootfs=DIR -- COMMAND`) and the "
          "system-call table (--workloads syscall): leave it out of runs of dlcbench's other workloads");
    rootfs_ = command_rootfs("chroot", options_.rootfs);
    if (geteuid() != 0)
      throw EnvironmentUnavailable("chroot needs root (chroot(2) and the binds of /proc, /sys and /dev into the root "
                                   "file system): run dlcbench as root");
    for (const char* needed : {"proc", "sys", "dev"})
      if (!fs::is_directory(rootfs_ / needed))
        throw EnvironmentUnavailable(fmt::format("chroot:rootfs={} has no /{} to bind the host's on: create the "
                                                 "folder in it (every image's root file system has one)",
                                                 options_.rootfs, needed));
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string&) const override {
    LaunchCommand c;
    if (launch.program != WorkerLaunch::Program::command)
      throw EnvironmentUnavailable("chroot runs only a user's command");
    c.argv = {probe_program_beside(context_.worker_exe).string(), "--chroot", rootfs_.string(),
              // The host's own: the command sees the machine as on the host.
              "--bind", "/proc:/proc", "--bind", "/sys:/sys:ro", "--bind", "/dev:/dev"};
    const CommandPlacement placed = place_command_in_container(launch);
    for (const auto& m : placed.mounts)
      c.argv.insert(c.argv.end(), {"--bind", fmt::format("{}:{}{}", m.host, m.container, m.read_only ? ":ro" : "")});
    const auto args = probe_arguments(launch, placed.data, placed.workdir);
    c.argv.insert(c.argv.end(), args.begin(), args.end());
    c.env = command_variables(launch, placed.data, placed.workdir);
    return c;
  }

  nlohmann::json describe() const override {
    return {{"name", "chroot"},
            {"rootfs", rootfs_.string()},
            {"isolation", "none: chroot(2) into the root file system, in a private mount namespace holding only the "
                          "binds of /proc, /sys (read-only), /dev, the data and the working folder; no PID, network, "
                          "IPC or user namespace, no cgroup limits, no seccomp filter"},
            {"command", {probe_program_beside(context_.worker_exe).string(), "--chroot", rootfs_.string(), "..."}}};
  }

 private:
  EnvironmentContext context_;
  ContainerOptions options_;
  fs::path rootfs_;
};

}  // namespace

std::unique_ptr<Environment> make_chroot_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context) {
  return std::make_unique<ChrootEnvironment>(request, context);
}

}  // namespace dlcbench
