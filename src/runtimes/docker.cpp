#include "runtimes/docker.h"

#include <stdlib.h>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "runtimes/image_builder.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

constexpr const char* kDaemonHelp =
    "start one with `scripts/with-docker.sh <command>` (starts dockerd for the command's duration "
    "and stops it after), or `systemctl start docker`; set DOCKER_HOST if it listens on another "
    "socket";

std::string first_line(const std::string& s) {
  auto start = s.find_first_not_of(" \n\t");
  if (start == std::string::npos) return "";
  return s.substr(start, s.find('\n', start) - start);
}

class DockerEnvironment : public Environment {
 public:
  DockerEnvironment(const EnvironmentRequest& request, EnvironmentContext context)
      : context_(std::move(context)) {
    if (auto it = request.options.find("image"); it != request.options.end()) image_ = it->second;
  }

  std::string name() const override { return "docker"; }

  void prepare() override {
    auto program = find_program("docker");
    if (!program)
      throw EnvironmentUnavailable(
          "the docker command is not installed: run `apt-get install docker.io` (or "
          "scripts/install-deps.sh)");
    docker_ = *program;
    auto version = capture_output({docker_, "version", "--format", "{{.Server.Version}}"}, 30);
    if (!version.result.ok())
      throw EnvironmentUnavailable(fmt::format("the Docker daemon is not reachable ({}): {}",
                                               first_line(version.result.stderr_tail), kDaemonHelp));
    server_version_ = first_line(version.out);
    if (image_.empty()) {
      image_ = ensure_image();
      image_built_ = true;
    } else if (!image_exists(image_)) {
      throw EnvironmentUnavailable(fmt::format(
          "image {} is not in the local Docker image store: load or build it first, or leave out "
          "image= to let dlcbench build one from its own binary",
          image_));
    }
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string& instance) const override {
    LaunchCommand c;
    c.argv = {docker_, "run", "--rm", "--name", instance,
              // The workloads need no network; none also keeps the host's
              // firewall and bridges out of the measurement.
              "--network", "none", "--label", "dlcbench.run=" + context_.run_id};
    for (const auto& [k, v] : launch.env) {
      c.argv.push_back("--env");
      c.argv.push_back(k + "=" + v);
    }
    std::string data = launch.data;
    if (data != "synthetic") {
      c.argv.push_back("--volume");
      c.argv.push_back(fs::absolute(data).string() + ":/data:ro");
      data = "/data";
    }
    c.argv.push_back(image_);
    c.argv.push_back(kImageBinaryPath);
    c.argv.insert(c.argv.end(), launch.worker_args.begin(), launch.worker_args.end());
    c.argv.push_back("--data");
    c.argv.push_back(data);
    return c;
  }

  void cleanup(const std::string& instance) override {
    // The client can die while its container lives on; remove it by name.
    capture_output({docker_, "rm", "--force", instance}, 60);
  }

  nlohmann::json describe() const override {
    return {{"name", "docker"},
            {"client", docker_},
            {"server_version", server_version_},
            {"docker_host", getenv("DOCKER_HOST") ? getenv("DOCKER_HOST") : ""},
            {"image", image_},
            {"image_built_by_dlcbench", image_built_},
            {"command", {docker_, "run", "--rm", "--name", "<instance>", "--network", "none",
                         "--env", "<settings>", "--volume", "<data>:/data:ro", image_,
                         kImageBinaryPath, "worker", "..."}}};
  }

 private:
  bool image_exists(const std::string& image) const {
    return capture_output({docker_, "image", "inspect", "--format", "{{.Id}}", image}, 60).result.ok();
  }

  std::string ensure_image() {
    const ImageContent content = worker_image_content(context_.self_exe);
    const std::string tag = "dlcbench-worker:" + content.content_id.substr(0, 16);
    if (image_exists(tag)) return tag;

    std::string scratch_template = (fs::temp_directory_path() / "dlcbench-image-XXXXXX").string();
    if (!mkdtemp(scratch_template.data()))
      throw EnvironmentUnavailable("cannot create a scratch folder for the image in " +
                                   fs::temp_directory_path().string());
    const fs::path scratch = scratch_template;
    struct RemoveScratch {
      fs::path p;
      ~RemoveScratch() {
        std::error_code ec;
        fs::remove_all(p, ec);
      }
    } remove{scratch};

    const fs::path tar = scratch / "rootfs.tar";
    write_rootfs_tar(content, tar, scratch);
    auto imported = capture_output(
        {docker_, "import", "--message", "dlcbench worker: binary and its shared libraries",
         "--change", "LABEL dlcbench.content=" + content.content_id, tar.string(), tag},
        900);
    if (!imported.result.ok())
      throw EnvironmentUnavailable(fmt::format("docker import of the worker image failed: {}\n{}",
                                               imported.result.describe(),
                                               imported.result.stderr_tail));
    return tag;
  }

  EnvironmentContext context_;
  std::string docker_ = "docker";
  std::string server_version_;
  std::string image_;
  bool image_built_ = false;
};

}  // namespace

std::unique_ptr<Environment> make_docker_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context) {
  return std::make_unique<DockerEnvironment>(request, context);
}

}  // namespace dlcbench
