#include "runtimes/environment.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "model/container_options.h"
#include "runtimes/engine.h"
#include "runtimes/host.h"
#include "runtimes/charliecloud.h"
#include "runtimes/chroot.h"
#include "runtimes/oci_runtime.h"

namespace dlcbench {

const char* serve_path_name(ServeRoute::Path path) {
  switch (path) {
    case ServeRoute::Path::host: return "host";
    case ServeRoute::Path::veth: return "veth";
    case ServeRoute::Path::slirp: return "slirp";
    case ServeRoute::Path::none: break;
  }
  return "none";
}

ServeRoute Environment::prepare_serving() {
  ServeRoute route;
  route.why_not = fmt::format(
      "{} starts the server in a network namespace of its own with loopback only, which the load generator on the "
      "host cannot reach: give {}:network=host to serve through the host's network",
      name(), name());
  return route;
}

// The host's own network, for environments that share it (host, chroot,
// charliecloud, network=host).
ServeRoute host_network_route() {
  ServeRoute route;
  route.reach = ServeRoute::Reach::loopback;
  route.listen = "127.0.0.1";
  route.path = ServeRoute::Path::host;
  return route;
}

std::string io_path_for(const std::string& target, bool in_container) {
  if (target == "rootfs") return in_container ? kContainerRootfsIoPath : kHostRootfsIoPath;
  if (target == "tmpfs") return in_container ? kContainerTmpfsIoPath : kHostTmpfsIoPath;
  return target;  // a host folder, mounted at the same place
}

std::unique_ptr<Environment> make_environment(const EnvironmentRequest& request,
                                              const EnvironmentContext& context) {
  if (request.name == "host") return make_host_environment(context);
  if (request.name == "docker" || request.name == "podman") return make_engine_environment(request, context);
  if (request.name == "runc" || request.name == "crun" || request.name == "runsc") return make_oci_environment(request, context);
  if (request.name == "chroot") return make_chroot_environment(request, context);
  if (request.name == "charliecloud") return make_charliecloud_environment(request, context);
  // parse_environment_request() accepts only the names above.
  throw UsageError(fmt::format("unknown environment '{}': valid environments are {}", request.name,
                               fmt::join(environment_names(), ", ")));
}

WorkerLaunch command_launch_of(const CaseSpec& spec, const std::string& data) {
  WorkerLaunch launch;
  launch.program = WorkerLaunch::Program::command;
  launch.data = data;
  launch.gpu = spec.device == "gpu";
  launch.command = &spec.command;
  launch.warmup = spec.warmup;
  return launch;
}

std::filesystem::path command_rootfs(const std::string& environment, const std::string& rootfs,
                                     const std::string& option) {
  if (rootfs.empty())
    throw EnvironmentUnavailable(fmt::format("a command runs in the root file system you give: {}:{}=DIR (e.g. "
                                             "the folder `docker export` of your image was unpacked into)",
                                             environment, option));
  if (!std::filesystem::is_directory(rootfs))
    throw EnvironmentUnavailable(fmt::format("{}:{}={}: no such folder", environment, option, rootfs));
  return std::filesystem::absolute(rootfs);
}

WorkerLaunch probe_work_launch(const CaseSpec& spec, std::vector<std::pair<std::string, std::string>> env,
                               std::optional<double> count_pause) {
  static const CommandSpec kNoCommand{};
  WorkerLaunch launch;
  launch.env = std::move(env);
  launch.program = WorkerLaunch::Program::command;
  launch.command = &kNoCommand;
  launch.warmup = spec.warmup;
  launch.count_pause = count_pause;
  launch.probe_work = {"--syscall", spec.variant, "--iters", std::to_string(spec.iters), "--warmup",
                       std::to_string(spec.warmup)};
  if (count_pause) launch.probe_work.insert(launch.probe_work.end(), {"--count-pause", fmt::format("{}", *count_pause)});
  return launch;
}

CommandPlacement place_command_in_container(const WorkerLaunch& launch) {
  CommandPlacement p;
  const CommandSpec& command = *launch.command;
  if (launch.data != "synthetic") {
    p.data = command.data_mount;
    p.mounts.push_back({std::filesystem::absolute(launch.data).string(), p.data, true});
  }
  if (!command.workdir.empty()) {
    p.workdir = command.workdir_mount;
    p.mounts.push_back({std::filesystem::absolute(command.workdir).string(), p.workdir, false});
  }
  return p;
}

std::vector<std::string> probe_arguments(const WorkerLaunch& launch, const std::string& data,
                                         const std::string& workdir) {
  std::vector<std::string> args;
  if (!workdir.empty()) args.insert(args.end(), {"--cwd", workdir});
  if (!data.empty()) args.insert(args.end(), {"--data", data});
  if (!launch.probe_work.empty()) {
    args.insert(args.end(), launch.probe_work.begin(), launch.probe_work.end());
    return args;
  }
  const MetricSpec& metric = launch.command->metric;
  if (launch.count_pause) {
    args.insert(args.end(), {"--count-pause", fmt::format("{}", *launch.count_pause)});
  } else if (metric.source != MetricSpec::Source::wall_time) {
    args.insert(args.end(), {metric.source == MetricSpec::Source::json_field ? "--metric-json" : "--metric",
                             metric.pattern, "--warmup", std::to_string(launch.warmup)});
    if (metric.higher_is_better) args.push_back("--higher-is-better");
  }
  args.push_back("--");
  const auto argv = command_argv_for(*launch.command, data, workdir);
  args.insert(args.end(), argv.begin(), argv.end());
  return args;
}

std::vector<std::pair<std::string, std::string>> command_variables(const WorkerLaunch& launch, const std::string& data,
                                                                   const std::string& workdir) {
  auto env = launch.command->env;
  // The probe's own work gets the thread settings every worker gets, so
  // that every environment's fingerprint shows the same (a user's command
  // has none: launch.env is empty).
  env.insert(env.end(), launch.env.begin(), launch.env.end());
  if (!data.empty()) env.emplace_back("DLCBENCH_DATA", data);
  if (!workdir.empty()) env.emplace_back("DLCBENCH_WORKDIR", workdir);
  return env;
}

}  // namespace dlcbench
