#include "runtimes/charliecloud.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "model/container_options.h"
#include "runtimes/image_builder.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

constexpr const char* kChRunPackage = "charliecloud-runtime";
// Where a host folder the I/O benchmarks write in is bound. Not at its own
// place as in the other runtimes: the container's /tmp is the run's own
// folder, and ch-run binds nothing inside an earlier bind, so a folder under
// /tmp could not be bound there.
constexpr const char* kChRunIoMount = "/dlcbench-io";

// The name ch-run needs in $USER: the invoking user's, from the password
// database, else the number (ch-run only reads it, for --home and messages).
std::string invoking_user_name() {
  if (const passwd* entry = getpwuid(geteuid()); entry && entry->pw_name && *entry->pw_name) return entry->pw_name;
  return std::to_string(geteuid());
}

// Makes a missing bind destination in an image folder: ch-run 0.31 makes one
// only in an image mounted read-write (-w). A path through a symbolic link
// is left alone, as it would lead out of the image on the host; ch-run then
// names the destination it cannot find.
void make_mount_point(const fs::path& image, const std::string& destination) {
  fs::path at = image;
  for (const auto& part : fs::path(destination).relative_path()) {
    at /= part;
    std::error_code ec;
    const auto status = fs::symlink_status(at, ec);
    if (fs::is_symlink(status)) return;
    if (!fs::exists(status) && !fs::create_directory(at, ec)) return;
  }
}

class CharliecloudEnvironment : public Environment {
 public:
  CharliecloudEnvironment(const EnvironmentRequest& request, EnvironmentContext context)
      : context_(std::move(context)), options_(request.container) {}

  std::string name() const override { return "charliecloud"; }

  void check() override {
    if (checked_) return;
    const auto program = find_program("ch-run");
    if (!program)
      throw EnvironmentUnavailable(fmt::format(
          "charliecloud needs ch-run, which is not installed: run `apt-get install {}` (or scripts/install-deps.sh)",
          kChRunPackage));
    setup_.program = *program;
    // ch-run refuses to start, even for --version, without $USER (a
    // service, a container or `env -i` may have none).
    const char* user = std::getenv("USER");
    if (!user || !*user) {
      setup_.user = invoking_user_name();
      adjustments_.push_back(fmt::format("USER={} set for ch-run, which refuses to start without $USER", setup_.user));
    }
    version_ = read_version();
    if (context_.command_only) {
      if (options_.rootfs.empty())
        throw EnvironmentUnavailable(
            "charliecloud runs a command in the image folder you give: charliecloud:image_dir=DIR (a Charliecloud "
            "directory image, e.g. from ch-convert, or the folder `docker export` of your image was unpacked into)");
      setup_.image = command_rootfs("charliecloud", options_.rootfs, "image_dir");
    } else if (!options_.rootfs.empty()) {
      setup_.image = fs::absolute(options_.rootfs);
      const char* needed = context_.noop_only ? kImageNoopPath : kImageWorkerPath;
      if (!context_.probe_only && !fs::exists(setup_.image / fs::path(needed).relative_path()))
        throw EnvironmentUnavailable(fmt::format("charliecloud:image_dir={} holds no {}: point image_dir= at an image "
                                                 "folder with dlcbench installed there, or leave it out",
                                                 options_.rootfs, needed));
    }
    if (!setup_.image.empty()) check_image_binds();
    checked_ = true;
  }

  void prepare() override {
    check();
    scratch_.emplace(scratch_prefix());
    setup_.tmp = scratch_->path() / "tmp";
    fs::create_directories(setup_.tmp);
    if (context_.command_only) {
      // The probe runs from the container's /tmp, which is this run's
      // folder: ch-run binds only folders, so the probe cannot be bound on
      // its own. A copy, not a hard link: the folder is writable in the
      // container, and a link would let the command write the build's probe.
      fs::copy_file(probe_program_beside(context_.worker_exe),
                    setup_.tmp / fs::path(kContainerProbePath).filename());
    } else if (options_.rootfs.empty()) {
      setup_.image = scratch_->path() / "image";
      write_charliecloud_image(image_content_for(context_.worker_exe, context_.noop_only, context_.image_extras),
                               setup_.image);
      check_image_binds();
    }
    check_starts();
  }

  void check_image_binds() const {
    if (const auto lacks = charliecloud_image_lacks(setup_.image); !lacks.empty())
      throw EnvironmentUnavailable(fmt::format(
          "the image folder {} lacks /{}, which ch-run binds onto: create them in it (empty files and folders do; "
          "ch-run writes its own /etc/passwd and /etc/group over them)",
          setup_.image.string(), fmt::join(lacks, ", /")));
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string&) const override {
    for (const auto& bind : charliecloud_binds(launch)) make_mount_point(setup_.image, bind.container);
    return charliecloud_command(setup_, launch);
  }

  // ch-run replaces itself with the program: nothing outlives a launch but
  // the run's folder, which finish() removes.
  void finish() override { scratch_.reset(); }
  // ch-run keeps the host's network namespace.
  ServeRoute prepare_serving() override { return host_network_route(); }

  std::vector<std::string> remove_leftovers() override {
    // A session killed with SIGKILL leaves its folder; the run id names it.
    return remove_scratch_dirs_left(scratch_prefix(), scratch_ ? scratch_->path() : fs::path());
  }

  nlohmann::json describe() const override {
    WorkerLaunch example;
    example.worker_args = {"worker", "..."};
    example.data = "/<data folder>";
    return {{"name", "charliecloud"},
            {"program", setup_.program},
            {"version", version_},
            {"image_dir", options_.rootfs.empty() ? "built by dlcbench from its binary and libraries"
                                                  : setup_.image.string()},
            {"command", charliecloud_command(setup_, example).argv},
            {"isolation",
             "a user and a mount namespace only (the caller's user mapped to itself, no privileges on the host): the "
             "host's PID, network, IPC and UTS namespaces and cgroups, its /dev, /proc and /sys, no seccomp filter; "
             "the image read-only unless a workload writes to it (--write); binds read-write (ch-run has no read-only "
             "bind: the data folder's own permissions guard it); the caller's environment passed through"},
            {"tmp", "the container's /tmp is a private folder of the run (ch-run binds $TMPDIR there)"},
            {"gpu", {{"method", "none"}, {"note", "dlcbench passes no GPU to ch-run (no driver libraries in its image)"}}},
            {"adjustments", adjustments_}};
  }

 private:
  std::string scratch_prefix() const { return "dlcbench-charliecloud-" + context_.run_id; }

  std::vector<std::pair<std::string, std::string>> chrun_env() const {
    if (setup_.user.empty()) return {};
    return {{"USER", setup_.user}};
  }

  // `ch-run --version` prints the version on stderr.
  std::string read_version() const {
    ProcessSpec spec;
    spec.argv = {setup_.program, "--version"};
    spec.env = chrun_env();
    spec.timeout_seconds = 30;
    std::string out;
    const ProcessResult result = run_process(spec, [&](std::string_view line) { out.append(line).push_back('\n'); });
    if (!result.ok())
      throw EnvironmentUnavailable(fmt::format("`ch-run --version` failed: {}\n{}", result.describe(), result.stderr_tail));
    return first_line(out.empty() ? result.stderr_tail : out);
  }

  // One start of the noop: finds a ch-run that cannot make a user namespace
  // here before any measurement relies on it.
  void check_starts() {
    if (!context_.noop_only && !fs::exists(setup_.image / fs::path(kImageNoopPath).relative_path())) return;
    WorkerLaunch noop;
    noop.program = WorkerLaunch::Program::noop;
    const ProcessResult result = run_process(command(noop, "").process(60, nullptr), [](std::string_view) {});
    if (result.ok()) return;
    const std::string all = result.describe() + result.stderr_tail;
    const bool namespaces = all.find("unshare") != std::string::npos || all.find("namespace") != std::string::npos;
    throw EnvironmentUnavailable(fmt::format(
        "ch-run cannot start a container here: {}\n{}{}", result.describe(), result.stderr_tail,
        namespaces ? "ch-run needs unprivileged user namespaces: check `sysctl user.max_user_namespaces` (above 0) "
                     "and, on Debian kernels, kernel.unprivileged_userns_clone=1"
                   : ""));
  }

  EnvironmentContext context_;
  ContainerOptions options_;
  bool checked_ = false;  // check() passed, and is not done twice
  ChRunSetup setup_;
  std::string version_;
  std::optional<ScratchDir> scratch_;
  std::vector<std::string> adjustments_;
};

}  // namespace

std::unique_ptr<Environment> make_charliecloud_environment(const EnvironmentRequest& request,
                                                           const EnvironmentContext& context) {
  return std::make_unique<CharliecloudEnvironment>(request, context);
}

std::vector<CommandMount> charliecloud_binds(const WorkerLaunch& launch) {
  if (launch.program == WorkerLaunch::Program::command) return place_command_in_container(launch).mounts;
  std::vector<CommandMount> binds;
  if (launch.program != WorkerLaunch::Program::worker) return binds;
  if (launch.data != "synthetic") binds.push_back({fs::absolute(launch.data).string(), "/data", true});
  if (!launch.io_target.empty() && launch.io_target != "rootfs" && launch.io_target != "tmpfs")
    binds.push_back({launch.io_target, kChRunIoMount, false});
  return binds;
}

LaunchCommand charliecloud_command(const ChRunSetup& setup, const WorkerLaunch& launch) {
  LaunchCommand c;
  c.argv = {setup.program};
  // The image stays read-only, as ch-run mounts it, unless the workload
  // measures writing to the container's own file system.
  if (launch.program == WorkerLaunch::Program::worker && launch.io_target == "rootfs") c.argv.push_back("--write");
  for (const auto& bind : charliecloud_binds(launch)) c.argv.push_back("--bind=" + bind.host + ":" + bind.container);
  c.argv.insert(c.argv.end(), {setup.image.string(), "--"});
  switch (launch.program) {
    case WorkerLaunch::Program::noop:
      c.argv.push_back(kImageNoopPath);
      break;
    case WorkerLaunch::Program::command: {
      const CommandPlacement placed = place_command_in_container(launch);
      c.argv.push_back(kContainerProbePath);
      const auto args = probe_arguments(launch, placed.data, placed.workdir);
      c.argv.insert(c.argv.end(), args.begin(), args.end());
      c.env = command_variables(launch, placed.data, placed.workdir);
      break;
    }
    case WorkerLaunch::Program::worker:
      c.argv.push_back(kImageWorkerPath);
      c.argv.insert(c.argv.end(), launch.worker_args.begin(), launch.worker_args.end());
      c.argv.insert(c.argv.end(), {"--data", launch.data == "synthetic" ? "synthetic" : "/data"});
      if (!launch.io_target.empty()) {
        // ch-run shares the host's /dev, so the tmpfs is the host's
        // /dev/shm, as for the host; it has no tmpfs of its own to mount.
        const std::string path = launch.io_target == "tmpfs"    ? kHostTmpfsIoPath
                                 : launch.io_target == "rootfs" ? kContainerRootfsIoPath
                                                                : kChRunIoMount;
        c.argv.insert(c.argv.end(), {"--path", path});
      }
      c.env = launch.env;
      break;
  }
  c.env.emplace_back("TMPDIR", setup.tmp.string());  // ch-run's: the container's /tmp (it unsets it inside)
  if (!setup.user.empty()) c.env.emplace_back("USER", setup.user);
  return c;
}

std::vector<std::string> charliecloud_image_lacks(const fs::path& image) {
  std::vector<std::string> lacks;
  for (const auto& folder : charliecloud_required_folders())
    if (!fs::is_directory(image / folder)) lacks.push_back(folder);
  for (const auto& file : charliecloud_required_files())
    if (!fs::exists(image / file)) lacks.push_back(file);
  return lacks;
}

void write_charliecloud_image(const ImageContent& content, const fs::path& image) {
  write_rootfs(content, image);
  for (const auto& folder : charliecloud_required_folders()) fs::create_directories(image / folder);
  fs::create_directories(image / "home");
  fs::create_directories(image / fs::path(kChRunIoMount).relative_path());
  for (const char* file : {"etc/passwd", "etc/group", "etc/hosts", "etc/resolv.conf"})
    if (!fs::exists(image / file)) std::ofstream(image / file).flush();
}

}  // namespace dlcbench
