#include "runtimes/engine.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <chrono>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "model/container_options.h"
#include "runtimes/gpu_access.h"
#include "runtimes/image_builder.h"
#include "runtimes/rootless.h"
#include "runtimes/seccomp_profile.h"
#include "core/scratch_dir.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// Whether this process may raise resource limits. Podman 4.3 copies the
// caller's limits into the container and fails with "setrlimit: operation
// not permitted" when it cannot raise them, unless they are given explicitly.
bool has_cap_sys_resource() {
  constexpr int kCapSysResource = 24;  // linux/capability.h
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> kCapSysResource) & 1;
  return false;
}

// The current limits as "soft:hard". Podman starts conmon with RLIMIT_NPROC
// at kernel.pid_max (seen: 32768, below our 96364), and the container cannot
// go above conmon's, so nproc is capped there; more processes than pid_max
// cannot exist anyway.
std::string rlimit_pair(int resource) {
  struct rlimit limit {};
  getrlimit(resource, &limit);
  rlim_t cap = RLIM_INFINITY;
  if (resource == RLIMIT_NPROC) {
    std::ifstream pid_max("/proc/sys/kernel/pid_max");
    unsigned long long v = 0;
    if (pid_max >> v && v > 0) cap = static_cast<rlim_t>(v);
  }
  auto text = [&](rlim_t v) {
    v = std::min(v, cap);
    return v == RLIM_INFINITY ? std::string("-1") : std::to_string(v);
  };
  return text(limit.rlim_cur) + ":" + text(limit.rlim_max);
}

struct EngineFlavour {
  std::string name;     // "docker" or "podman"
  std::string display;  // "Docker" or "Podman"
  std::string install_hint;
  std::string unreachable_hint;
};

const EngineFlavour& flavour(const std::string& name) {
  static const EngineFlavour docker{
      "docker", "Docker", "the docker command is not installed: run `apt-get install docker.io` (or scripts/install-deps.sh)",
      "start one with `scripts/with-docker.sh <command>` (starts dockerd for the command's duration and stops it "
      "after), or `systemctl start docker`; set DOCKER_HOST if it listens on another socket"};
  static const EngineFlavour podman{
      "podman", "Podman", "podman is not installed: run `apt-get install podman` (or scripts/install-deps.sh)",
      "run `podman info` to see why podman cannot start here"};
  return name == "podman" ? podman : docker;
}

class EngineEnvironment : public Environment {
 public:
  EngineEnvironment(const EnvironmentRequest& request, EnvironmentContext context)
      : flavour_(flavour(request.name)),
        context_(std::move(context)),
        options_(request.container),
        image_(options_.image) {}

  std::string name() const override { return flavour_.name; }

  void check() override {
    if (checked_) return;
    auto program = find_program(flavour_.name);
    if (!program) throw EnvironmentUnavailable(flavour_.install_hint);
    program_ = *program;
    if (!options_.rootless_user.empty()) {
      rootless_ = rootless_user(options_.rootless_user, flavour_.name);
      user_prefix_ = run_as_prefix(*rootless_);
    }
    if (flavour_.name == "podman") configure_podman();
    // Rootless Docker: the user's own dockerd, under rootlesskit, at its
    // socket in the user's runtime folder (dockerd-rootless.sh's default).
    if (flavour_.name == "docker" && rootless_) global_flags_ = {"--host", rootless_docker_host(*rootless_)};
    add_option_flags();
    add_gpu_flags();
    auto version = capture_output(global({"version", "--format", version_format()}), 60);
    if (!version.result.ok())
      throw EnvironmentUnavailable(fmt::format(
          "{} cannot reach its engine ({}): {}", flavour_.name, first_line(version.result.stderr_tail),
          flavour_.name == "docker" && rootless_
              ? fmt::format("no rootless dockerd of {} answers at {}: start one with scripts/with-rootless-docker.sh "
                            "COMMAND (it runs dockerd-rootless.sh as that user, then stops it)",
                            rootless_->name, rootless_docker_host(*rootless_))
              : flavour_.unreachable_hint));
    if (flavour_.name == "docker" && rootless_) {
      auto driver = capture_output(global({"info", "--format", "{{.Driver}}"}), 120);
      if (driver.result.ok()) storage_driver_ = first_line(driver.out);
    }
    version_ = first_line(version.out);
    if (flavour_.name == "docker") check_docker_runtime();
    if (image_.empty() && context_.command_only)
      throw EnvironmentUnavailable(fmt::format(
          "a command runs in the image you give: {}:image=NAME (dlcbench's own image holds only dlcbench)",
          flavour_.name));
    if (!image_.empty() && !image_exists(image_))
      throw EnvironmentUnavailable(fmt::format(
          "image {} is not in the local {} image store: load or build it first ({} pull, load or import), or "
          "leave out image= to let dlcbench build one from its own binary",
          image_, flavour_.display, flavour_.name));
    checked_ = true;
  }

  void prepare() override {
    check();
    if (image_.empty()) {
      image_ = ensure_image();
      image_built_ = true;
    }
    if (options_.runtime == "runsc" && image_built_ &&
        (context_.noop_only || fs::exists(noop_program_beside(context_.worker_exe))))
      check_runsc_starts();
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string& instance) const override {
    LaunchCommand c;
    c.argv = global({"run", "--rm", "--name", instance, "--label", "dlcbench.run=" + context_.run_id});
    // A rootless engine makes no cgroup outside the user's own.
    if (!context_.cgroup_parent.empty() && !rootless_)
      c.argv.insert(c.argv.end(), {"--cgroup-parent", context_.cgroup_parent});
    c.argv.insert(c.argv.end(), run_flags_.begin(), run_flags_.end());
    if (launch.serves && !serve_network_.empty())
      for (std::size_t i = 0; i + 1 < c.argv.size(); ++i)
        if (c.argv[i] == "--network") c.argv[i + 1] = serve_network_;
    for (const auto& [k, v] : launch.env) {
      c.argv.push_back("--env");
      c.argv.push_back(k + "=" + v);
    }
    if (launch.program == WorkerLaunch::Program::noop) {
      c.argv.push_back(image_);
      c.argv.push_back(kImageNoopPath);
      return c;
    }
    if (launch.gpu) c.argv.insert(c.argv.end(), gpu_flags_.begin(), gpu_flags_.end());
    if (launch.program == WorkerLaunch::Program::command) return command_launch(std::move(c), launch);
    std::string data = launch.data;
    if (data != "synthetic") {
      c.argv.push_back("--volume");
      c.argv.push_back(fs::absolute(data).string() + ":/data:ro");
      data = "/data";
    }
    const std::string io_path = launch.io_target.empty() ? "" : io_path_for(launch.io_target, true);
    // scratch=: writes meant for the container's own file system go to a
    // tmpfs or an anonymous volume (removed with the container by --rm).
    if (launch.io_target == "tmpfs" || (launch.io_target == "rootfs" && options_.scratch == "tmpfs")) {
      c.argv.push_back("--tmpfs");
      c.argv.push_back(io_path);
    } else if (launch.io_target == "rootfs" && options_.scratch == "volume") {
      c.argv.push_back("--mount");
      c.argv.push_back("type=volume,destination=" + io_path);
    } else if (!launch.io_target.empty() && launch.io_target != "rootfs") {
      // The workload writes its scratch file there, so read-write.
      c.argv.push_back("--volume");
      c.argv.push_back(io_path + ":" + io_path + ":rw");
    }
    c.argv.push_back(image_);
    c.argv.push_back(kImageWorkerPath);
    c.argv.insert(c.argv.end(), launch.worker_args.begin(), launch.worker_args.end());
    c.argv.push_back("--data");
    c.argv.push_back(data);
    if (!io_path.empty()) {
      c.argv.push_back("--path");
      c.argv.push_back(io_path);
    }
    return c;
  }

  // A user's command in the user's image, under dlcbench-probe (bound
  // read-only, and the entry point, so the image's own ENTRYPOINT does not
  // wrap the command: it runs as given, like `docker run --entrypoint`).
  LaunchCommand command_launch(LaunchCommand c, const WorkerLaunch& launch) const {
    c.argv.insert(c.argv.end(), {"--volume", fmt::format("{}:{}:ro", fs::absolute(probe_program_beside(context_.worker_exe)).string(),
                                                         kContainerProbePath),
                                 "--entrypoint", kContainerProbePath});
    const CommandPlacement placed = place_command_in_container(launch);
    for (const auto& m : placed.mounts)
      c.argv.insert(c.argv.end(), {"--volume", fmt::format("{}:{}:{}", m.host, m.container, m.read_only ? "ro" : "rw")});
    // `--env NAME` takes the value from the client's environment: a value on
    // the command line would be readable by every user in `ps`.
    for (auto& [name, value] : command_variables(launch, placed.data, placed.workdir)) {
      c.argv.insert(c.argv.end(), {"--env", name});
      c.env.emplace_back(name, std::move(value));
    }
    c.argv.push_back(image_);
    const auto args = probe_arguments(launch, placed.data, placed.workdir);
    c.argv.insert(c.argv.end(), args.begin(), args.end());
    return c;
  }

  void cleanup(const std::string& instance) override {
    // The client can die while its container lives on; remove it by name.
    capture_output(global({"rm", "--force", instance}), 60);
  }

  std::vector<std::string> remove_leftovers() override {
    // A session killed with SIGKILL cannot remove its containers; each
    // carries the run id as a label, so they are found by it.
    auto listed = capture_output(
        global({"ps", "--all", "--filter", "label=dlcbench.run=" + context_.run_id, "--format", "{{.Names}}"}), 60);
    if (!listed.result.ok())
      throw std::runtime_error(fmt::format("{} ps failed: {}", flavour_.name, first_line(listed.result.stderr_tail)));
    std::vector<std::string> removed;
    std::stringstream names(listed.out);
    for (std::string name; std::getline(names, name);) {
      if (name.empty()) continue;
      auto rm = capture_output(global({"rm", "--force", name}), 60);
      // A container started with --rm whose client was killed is being
      // removed by the engine itself at this moment ("removal of container
      // ... is already in progress"), or already is: it goes either way, so
      // wait for it rather than give up on the rest.
      if (!rm.result.ok() && !container_going(name, rm.result.stderr_tail))
        throw std::runtime_error(fmt::format("{} rm --force {} failed: {}", flavour_.name, name,
                                             first_line(rm.result.stderr_tail)));
      removed.push_back(name);
    }
    // A serve case's bridge network (docker), labelled with the run id.
    if (flavour_.name == "docker") {
      auto networks = capture_output(
          global({"network", "ls", "--filter", "label=dlcbench.run=" + context_.run_id, "--format", "{{.Name}}"}), 60);
      std::stringstream listed_networks(networks.result.ok() ? networks.out : "");
      for (std::string name; std::getline(listed_networks, name);)
        if (!name.empty() && name != serve_network_ && capture_output(global({"network", "rm", name}), 60).result.ok())
          removed.push_back(name);
    }
    // The image's tar, if a session was killed while it built it.
    const auto folders = remove_scratch_dirs_left(image_scratch_prefix());
    removed.insert(removed.end(), folders.begin(), folders.end());
    return removed;
  }

  // After a failed `rm --force`: whether the engine is removing the
  // container itself (or has), waiting up to 30 s for it to be gone.
  bool container_going(const std::string& name, const std::string& rm_error) const {
    const bool in_progress = rm_error.find("already in progress") != std::string::npos;
    if (!in_progress && rm_error.find("No such container") == std::string::npos &&
        rm_error.find("no such container") == std::string::npos)
      return false;
    for (int i = 0; i < 300; ++i) {
      if (!capture_output(global({"container", "inspect", "--format", "{{.Id}}", name}), 30).result.ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::vector<std::string> remove_ended_run() override {
    std::vector<std::string> removed = remove_leftovers();
    // Its own tag of the worker image (the content's shared tag stays, as
    // for a run with --keep-images: another run may launch from it).
    const std::string local = flavour_.name == "podman" ? "localhost/" : "";
    for (const char* repository : {"dlcbench-worker", "dlcbench-noop"}) {
      auto listed = capture_output(
          global({"images", "--filter", fmt::format("reference={}{}:*-{}", local, repository, context_.run_id),
                  "--format", "{{.Repository}}:{{.Tag}}"}),
          60);
      if (!listed.result.ok()) continue;
      std::stringstream tags(listed.out);
      for (std::string tag; std::getline(tags, tag);)
        if (!tag.empty() && capture_output(global({"rmi", tag}), 120).result.ok()) removed.push_back(tag);
    }
    return removed;
  }

  // docker: a bridge network of the run's own (dockerd runs with
  // --bridge=none under scripts/with-docker.sh, so there is no default one;
  // with --iptables=false it adds no firewall rule), reached from the host
  // at the server's address on it. The others: the host's network only.
  ServeRoute prepare_serving() override {
    if (options_.network == "host") return host_network_route();
    ServeRoute route;
    if (flavour_.name == "docker" && rootless_) {
      route.why_not = "docker:rootless: the containers of rootless Docker live in rootlesskit's network namespace "
                      "(network=host too), which the host reaches only through a published port; serve with "
                      "docker or docker:network=host";
      return route;
    }
    if (flavour_.name != "docker") {
      route.why_not = fmt::format(
          "{}{}: serve needs a network the host reaches, and {}; give {}:network=host to serve through the host's "
          "network",
          flavour_.name, rootless_ ? " (rootless)" : "",
          rootless_ ? "rootless Podman's slirp4netns reaches the container only through a published port"
                    : "Podman's bridge networks add firewall rules (netavark, CNI), which dlcbench never touches",
          flavour_.name);
      return route;
    }
    if (options_.runtime == "runsc") {
      route.why_not = "docker:runtime=runsc: dockerd runs runsc with --network=none (gVisor's loopback-only stack), "
                      "which the host cannot reach; serve with runsc:network=host instead";
      return route;
    }
    if (serve_network_.empty()) {
      const std::string name = "dlcbench-serve-" + context_.run_id;
      auto exists = capture_output(global({"network", "inspect", "--format", "{{.Name}}", name}), 60);
      if (!exists.result.ok()) {
        auto made = capture_output(
            global({"network", "create", "--driver", "bridge", "--label", "dlcbench.run=" + context_.run_id, name}), 120);
        if (!made.result.ok())
          throw EnvironmentUnavailable(fmt::format(
              "docker network create {} failed: {}; serve needs a bridge network for the server, or give "
              "docker:network=host",
              name, first_line(made.result.stderr_tail)));
      }
      serve_network_ = name;
    }
    route.reach = ServeRoute::Reach::server_address;
    route.listen = "0.0.0.0";
    route.path = ServeRoute::Path::veth;
    return route;
  }

  void finish() override {
    if (!serve_network_.empty()) {
      capture_output(global({"network", "rm", serve_network_}), 60);
      serve_network_.clear();
    }
    // The run's own tag goes (the image stays while another run's tag or the
    // shared one names it). An image imported for this run goes with it,
    // unless asked to keep it; one that was already there stays.
    if (!run_tag_.empty()) {
      auto untagged = capture_output(global({"rmi", run_tag_}), 300);
      if (!untagged.result.ok() && image_exists(run_tag_))
        throw std::runtime_error(
            fmt::format("{} rmi {} failed: {}", flavour_.name, run_tag_, untagged.result.stderr_tail));
      run_tag_.clear();
    }
    if (imported_now_ && !context_.keep_images) {
      auto removed = capture_output(global({"rmi", "--force", shared_tag_}), 300);
      // Gone already: a run importing the same content at the same time
      // replaced the tag and removed it with its image.
      if (removed.result.ok() || !image_exists(shared_tag_)) imported_now_ = false;
      else
        throw std::runtime_error(
            fmt::format("{} rmi {} failed: {}", flavour_.name, shared_tag_, removed.result.stderr_tail));
    }
  }

  nlohmann::json describe() const override {
    WorkerLaunch example;
    example.worker_args = {"worker", "..."};
    example.data = "<data>";
    nlohmann::json d = {{"name", flavour_.name},
                        {"client", program_},
                        {"version", version_},
                        {"image", image_built_ ? shared_tag_ : image_},
                        {"image_run_tag", run_tag_},
                        {"image_built_by_dlcbench", image_built_},
                        {"image_kept_after_run", !imported_now_ || context_.keep_images},
                        {"options", options_json()},
                        {"command", command(example, "<instance>").argv}};
    if (flavour_.name == "docker") {
      d["docker_host"] = rootless_ ? rootless_docker_host(*rootless_) : getenv("DOCKER_HOST") ? getenv("DOCKER_HOST") : "";
      // The OCI runtime dockerd starts the containers with (gVisor's
      // platform is among its arguments) and the ones it knows.
      d["runtimes_registered"] = docker_runtimes_;
    }
    d["runtime"] = runtime_;
    d["rootless"] = rootless_json();
    d["storage_driver"] = storage_driver_;
    d["network_path"] = network_path();
    if (!adjustments_.empty()) d["adjustments"] = adjustments_;
    d["gpu"] = {{"method", gpu_method_}, {"note", gpu_note_}, {"flags", gpu_flags_}};
    return d;
  }

 private:
  // Flags before the subcommand (podman's runtime and cgroup manager).
  std::vector<std::string> global(std::vector<std::string> args) const {
    std::vector<std::string> argv = user_prefix_;
    argv.push_back(program_);
    argv.insert(argv.end(), global_flags_.begin(), global_flags_.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  std::string version_format() const {
    return flavour_.name == "podman" ? "{{.Client.Version}}" : "{{.Server.Version}}";
  }

  // What podman 4.3 needs on machines like Debian 12 in a container: each
  // adjustment is recorded in the manifest with its reason.
  void configure_podman() {
    const std::string runtime = options_.runtime.empty() ? "runc" : options_.runtime;
    global_flags_ = {"--runtime", runtime};
    runtime_ = {{"name", runtime}, {"asked", !options_.runtime.empty()}};
    if (options_.runtime.empty())
      adjustments_.push_back("--runtime runc: crun 1.8 refuses hybrid cgroup layouts (pass podman:runtime=crun to try)");
    if (!fs::exists("/run/systemd/system")) {
      global_flags_.insert(global_flags_.end(), {"--cgroup-manager", "cgroupfs", "--events-backend", "file"});
      adjustments_.push_back("--cgroup-manager cgroupfs --events-backend file: systemd is not running");
    }
    // Rootless, Podman cannot raise a limit above the user's, as without
    // CAP_SYS_RESOURCE.
    if (!has_cap_sys_resource() || rootless_) {
      for (const auto& [name, resource] : {std::pair{"nofile", RLIMIT_NOFILE}, std::pair{"nproc", RLIMIT_NPROC}}) {
        run_flags_.push_back("--ulimit");
        run_flags_.push_back(fmt::format("{}={}", name, rlimit_pair(resource)));
      }
      adjustments_.push_back(rootless_ ? "--ulimit nofile,nproc at the current limits (nproc at most "
                                         "kernel.pid_max): rootless Podman cannot raise them"
                                       : "--ulimit nofile,nproc at the current limits (nproc at most "
                                         "kernel.pid_max): this process lacks CAP_SYS_RESOURCE");
    }
    auto driver = capture_output(global({"info", "--format", "{{.Store.GraphDriverName}}"}), 120);
    if (driver.result.ok()) storage_driver_ = first_line(driver.out);
  }

  void add_option_flags() {
    // docker:runtime=NAME: a runtime dockerd knows by that name (runsc is
    // registered by scripts/with-docker.sh or daemon.json; see
    // check_docker_runtime()). Podman's is a global flag (configure_podman).
    if (flavour_.name == "docker" && !options_.runtime.empty())
      run_flags_.insert(run_flags_.end(), {"--runtime", options_.runtime});
    // The workloads need no network; none also keeps the host's firewall and
    // bridges out of the measurement (under runsc, gVisor's own loopback-only
    // stack).
    run_flags_.insert(run_flags_.end(), {"--network", options_.network});
    if (options_.cpus) run_flags_.insert(run_flags_.end(), {"--cpus", fmt::format("{}", *options_.cpus)});
    if (!options_.cpuset.empty()) run_flags_.insert(run_flags_.end(), {"--cpuset-cpus", options_.cpuset});
    if (options_.memory_bytes) run_flags_.insert(run_flags_.end(), {"--memory", std::to_string(*options_.memory_bytes)});
    if (options_.shm_bytes) run_flags_.insert(run_flags_.end(), {"--shm-size", std::to_string(*options_.shm_bytes)});
    if (!options_.ipc.empty()) run_flags_.insert(run_flags_.end(), {"--ipc", options_.ipc});
    // Docker knows no "--pid private": its default is the private namespace.
    if (options_.pid == "host") run_flags_.insert(run_flags_.end(), {"--pid", "host"});
    if (!options_.seccomp.empty()) {
      std::string profile = options_.seccomp;
      if (profile != "unconfined") {
        if (!fs::is_regular_file(profile))
          throw EnvironmentUnavailable(fmt::format("{}:seccomp={}: no such profile file", flavour_.name, profile));
        // The engine reads it only at the first launch, and refuses every one.
        try {
          load_engine_seccomp_profile(profile, {});
        } catch (const DataError& e) {
          throw EnvironmentUnavailable(fmt::format("{}:seccomp={}: {}", flavour_.name, profile, e.what()));
        }
        profile = fs::absolute(profile).string();
      }
      run_flags_.insert(run_flags_.end(), {"--security-opt", "seccomp=" + profile});
      if (options_.runtime == "runsc")
        adjustments_.push_back("the seccomp profile goes to gVisor, which applies a container's own profile only "
                               "when runsc runs with --oci-seccomp (its Sentry filters the host calls itself)");
    }
  }

  // docker:runtime=NAME needs dockerd to know NAME: it refuses every
  // container otherwise. What it knows, and its default, are recorded.
  void check_docker_runtime() {
    auto info = capture_output(
        global({"info", "--format", "{\"runtimes\":{{json .Runtimes}},\"default\":{{json .DefaultRuntime}}}"}), 60);
    nlohmann::json known = nlohmann::json::object();
    std::string fallback;
    if (info.result.ok()) {
      const auto parsed = nlohmann::json::parse(info.out, nullptr, false);
      if (parsed.is_object() && parsed.value("runtimes", nlohmann::json()).is_object()) {
        known = parsed["runtimes"];
        if (parsed["default"].is_string()) fallback = parsed["default"].get<std::string>();
      }
    }
    for (const auto& [name, runtime] : known.items()) docker_runtimes_.push_back(name);
    const std::string name = options_.runtime.empty() ? fallback : options_.runtime;
    runtime_ = {{"name", name}, {"asked", !options_.runtime.empty()}};
    if (known.contains(name) && known[name].is_object()) {
      // Docker's JSON names the arguments runtimeArgs (older: args).
      const auto& r = known[name];
      runtime_["path"] = r.value("path", "");
      for (const char* key : {"runtimeArgs", "args"})
        if (r.contains(key) && r[key].is_array()) runtime_["args"] = r[key];
    }
    if (options_.runtime == "runsc" && known.contains("runsc") && options_.network != "none") {
      const auto args = runtime_.value("args", nlohmann::json::array());
      if (std::find(args.begin(), args.end(), "--network=none") != args.end())
        throw EnvironmentUnavailable(fmt::format(
            "docker:runtime=runsc,network={}: dockerd runs runsc with --network=none (its runtimeArgs), a "
            "loopback-only network whatever docker's --network says: leave network= out, or register runsc "
            "without --network=none where its own network stack works (runsc releases after 2022)",
            options_.network));
    }
    if (options_.runtime.empty() || known.contains(options_.runtime)) return;
    const char* host = getenv("DOCKER_HOST");
    const std::string why =
        info.result.ok()
            ? fmt::format("dockerd{} knows no runtime named {} (it knows {})", host ? fmt::format(" at {}", host) : "",
                          options_.runtime,
                          docker_runtimes_.empty() ? "none" : fmt::format("{}", fmt::join(docker_runtimes_, ", ")))
            : fmt::format("`docker info` failed, so the runtimes dockerd knows are unknown ({})",
                          first_line(info.result.stderr_tail));
    if (options_.runtime != "runsc") throw EnvironmentUnavailable(why);
    throw EnvironmentUnavailable(fmt::format(
        "docker:runtime=runsc: {}. scripts/with-docker.sh registers gVisor's runsc when it starts its own "
        "dockerd; for a running dockerd, add {{\"runtimes\":{{\"runsc\":{{\"path\":\"{}\",\"runtimeArgs\":"
        "[\"--platform=ptrace\",\"--network=none\"]}}}}}} to /etc/docker/daemon.json and restart dockerd (or "
        "run `runsc install -- --platform=ptrace --network=none` and restart it){}",
        why, find_program("runsc").value_or("/usr/bin/runsc"),
        find_program("runsc") ? "" : "; runsc is not installed: run `apt-get install runsc`"));
  }

  // One container of gVisor under dockerd that exits at once: it fails in
  // ways runc does not (Debian's runsc cannot use docker's network namespace
  // unless it runs with --network=none; the KVM platform hangs in a VM), and
  // that is found before a measurement relies on it.
  void check_runsc_starts() {
    WorkerLaunch noop;
    noop.program = WorkerLaunch::Program::noop;
    const std::string instance = fmt::format("dlcbench-{}-runsc-check-{}", context_.run_id, getpid());
    const auto started = capture_output(command(noop, instance).argv, 30);
    cleanup(instance);
    if (started.result.ok()) return;
    const std::string& err = started.result.stderr_tail;
    std::string hint;
    if (err.find("root network namespace") != std::string::npos)
      hint = "\nthis runsc cannot take over the interfaces of docker's network namespace on this kernel: give it "
             "\"--network=none\" in its runtimeArgs in the daemon config (gVisor's loopback-only stack, as docker's "
             "--network none; scripts/with-docker.sh does), and restart dockerd";
    else if (started.result.timed_out)
      hint = "\na gVisor sandbox that never starts is its KVM platform on a VM without nested virtualisation: give "
             "runsc \"--platform=ptrace\" in its runtimeArgs in the daemon config and restart dockerd (`dlcbench "
             "doctor` tries both platforms)";
    throw EnvironmentUnavailable(fmt::format("docker:runtime=runsc cannot start a container here: {}\n{}{}",
                                             started.result.describe(), first_line(err), hint));
  }

  // GPU cases: the engine's own way (the NVIDIA toolkit) where installed,
  // else the device nodes and driver libraries, given to worker launches
  // only (the startup workload's containers stay as they are).
  void add_gpu_flags() {
    if (options_.runtime == "runsc") {
      // This gVisor (Debian's 20221219) has no GPU proxy: the sandbox sees no
      // /dev/nvidia*, and its containers run only the CPU cases.
      if (options_.gpus == "all" || options_.gpus == "nodes")
        throw EnvironmentUnavailable(fmt::format(
            "docker:runtime=runsc,gpus={}: gVisor (runsc) passes no GPU to its sandboxes here: leave gpus= out, "
            "or measure GPU cases with runtime=runc",
            options_.gpus));
      gpu_method_ = "none";
      gpu_note_ = "no GPU passed: gVisor (runsc) passes no GPU to its sandboxes";
      return;
    }
    gpu_method_ = gpu_method(flavour_.name, options_.gpus, context_.gpu);
    if (gpu_method_ == "toolkit") {
      gpu_flags_ = flavour_.name == "docker" ? std::vector<std::string>{"--gpus", "all"}
                                             : std::vector<std::string>{"--device", "nvidia.com/gpu=all"};
      gpu_note_ = flavour_.name == "docker" ? "the NVIDIA container toolkit (docker --gpus all)"
                                            : "the NVIDIA container toolkit's CDI device nvidia.com/gpu=all";
      return;
    }
    if (gpu_method_ != "nodes") return;
    try {
      const GpuPassthrough gpu = host_gpu_passthrough();
      for (const auto& node : gpu.devices) gpu_flags_.insert(gpu_flags_.end(), {"--device", node.path});
      for (const auto& lib : gpu.libraries) gpu_flags_.insert(gpu_flags_.end(), {"--volume", lib + ":" + lib + ":ro"});
      gpu_flags_.insert(gpu_flags_.end(), {"--env", "LD_LIBRARY_PATH=" + gpu.library_dir});
      gpu_note_ = "no NVIDIA container toolkit: dlcbench passes the /dev/nvidia* device nodes and binds the driver "
                  "libraries read-only";
    } catch (const EnvironmentUnavailable& e) {
      // The GPU cases then fail with the worker's "no GPU"; the CPU cases run.
      gpu_method_ = "none";
      gpu_note_ = std::string("no GPU passed: ") + e.what();
    }
  }

  nlohmann::json options_json() const {
    nlohmann::json o = nlohmann::json::object();
    if (options_.cpus) o["cpus"] = *options_.cpus;
    if (!options_.cpuset.empty()) o["cpuset"] = options_.cpuset;
    if (options_.memory_bytes) o["memory_bytes"] = *options_.memory_bytes;
    if (options_.shm_bytes) o["shm_bytes"] = *options_.shm_bytes;
    if (!options_.ipc.empty()) o["ipc"] = options_.ipc;
    if (!options_.pid.empty()) o["pid"] = options_.pid;
    if (!options_.scratch.empty()) o["scratch"] = options_.scratch;
    if (!options_.runtime.empty()) o["runtime"] = options_.runtime;
    o["network"] = options_.network;
    o["seccomp"] = options_.seccomp.empty() ? "default" : options_.seccomp;
    return o;
  }

  bool image_exists(const std::string& image) const {
    return capture_output(global({"image", "inspect", "--format", "{{.Id}}", image}), 60).result.ok();
  }

  std::string image_scratch_prefix() const { return "dlcbench-image-" + context_.run_id; }

  // The image is imported under a tag named after its content, which every
  // run of the same binary shares, and each run launches its containers from
  // a tag of its own: a run that ends and removes the image it imported only
  // untags it while another run still uses it.
  std::string ensure_image() {
    const ImageContent content = image_content_for(context_.worker_exe, context_.noop_only, context_.image_extras);
    const std::string tag =
        fmt::format("{}:{}", context_.noop_only ? "dlcbench-noop" : "dlcbench-worker", content.content_id.substr(0, 16));
    const std::string local = flavour_.name == "podman" ? "localhost/" : "";
    shared_tag_ = local + tag;
    const std::string run_tag = fmt::format("{}{}-{}", local, tag, context_.run_id);
    if (image_exists(run_tag)) {  // a killed session of this run made it
      run_tag_ = run_tag;
      imported_now_ = context_.adopt_image;
      return run_tag_;
    }
    if (image_exists(shared_tag_) && tag_as(run_tag).empty()) {
      imported_now_ = context_.adopt_image;  // a killed session of this run imported it
      return run_tag_;
    }

    ScratchDir scratch(image_scratch_prefix());
    const fs::path tar = scratch.path() / "rootfs.tar";
    write_rootfs_tar(content, tar, scratch.path());
    // Rootless, the engine's client reads the tar as its user: the folder (0700, root's)
    // and the file become that user's.
    if (rootless_ && rootless_->switch_user)
      for (const fs::path& p : {scratch.path(), tar})
        if (chown(p.c_str(), rootless_->uid, rootless_->gid) != 0)
          throw EnvironmentUnavailable(fmt::format("{}:rootless={}: cannot give {} to the user: {}", flavour_.name,
                                                   rootless_->name, p.string(), std::strerror(errno)));
    // Imported under this run's own tag: a run of the same content that ends
    // meanwhile removes the shared tag, and with it an image that only the
    // shared tag named.
    auto imported = capture_output(global({"import", "--message", "dlcbench worker: binary and its shared libraries",
                                           "--change", "LABEL dlcbench.content=" + content.content_id, tar.string(),
                                           fmt::format("{}-{}", tag, context_.run_id)}),
                                   900);
    if (!imported.result.ok())
      throw EnvironmentUnavailable(fmt::format("{} import of the worker image failed: {}\n{}", flavour_.name,
                                               imported.result.describe(), imported.result.stderr_tail));
    run_tag_ = run_tag;
    imported_now_ = true;
    // And under the shared tag, for the runs that start while this one
    // goes on. Without it they import their own: nothing is lost.
    capture_output(global({"tag", run_tag_, shared_tag_}), 60);
    return run_tag_;
  }

  // Tags the shared image as this run's; returns the engine's error, or "".
  std::string tag_as(const std::string& run_tag) {
    auto tagged = capture_output(global({"tag", shared_tag_, run_tag}), 60);
    if (!tagged.result.ok()) return first_line(tagged.result.stderr_tail);
    run_tag_ = run_tag;
    return "";
  }


  nlohmann::json rootless_json() const {
    if (!rootless_) return nullptr;
    return {{"user", rootless_->name}, {"uid", rootless_->uid}, {"switched_from_root", rootless_->switch_user}};
  }

  // How a packet from the worker would leave: none, the host's stack, or the
  // engine's (slirp4netns in user space when rootless, a veth pair to a
  // bridge otherwise).
  std::string network_path() const {
    if (options_.network == "none") return "none (loopback only)";
    if (options_.network == "host") return "host (the host's network namespace)";
    return rootless_ ? "slirp4netns (user-space TCP/IP)" : "veth to a bridge";
  }

  const EngineFlavour& flavour_;
  EnvironmentContext context_;
  ContainerOptions options_;
  std::string program_;
  bool checked_ = false;  // check() passed: its flags are set, and it is not done twice
  std::optional<RootlessUser> rootless_;   // podman:rootless=USER
  std::vector<std::string> user_prefix_;   // runs the client as that user (rootless.h)
  std::string storage_driver_;             // podman: overlay, vfs (rootless without fuse-overlayfs), ...
  std::string serve_network_;              // docker: the run's bridge network for serve cases, once made
  std::vector<std::string> global_flags_;
  std::vector<std::string> run_flags_;
  std::vector<std::string> adjustments_;
  std::vector<std::string> gpu_flags_;
  std::string gpu_method_ = "none", gpu_note_;
  nlohmann::json runtime_ = nlohmann::json::object();  // the OCI runtime: name, asked; docker: path, args
  std::vector<std::string> docker_runtimes_;          // docker: the runtimes dockerd knows
  std::string version_;
  std::string image_;
  std::string shared_tag_;     // dlcbench's image: dlcbench-worker:<content>
  std::string run_tag_;        // this run's tag of it, removed at the end
  bool image_built_ = false;
  bool imported_now_ = false;
};

}  // namespace

std::unique_ptr<Environment> make_engine_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context) {
  return std::make_unique<EngineEnvironment>(request, context);
}

}  // namespace dlcbench
