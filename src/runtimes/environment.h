// An environment runs the worker: the bare host, or a container runtime.
// Each turns "run the worker with these arguments" into an argument vector;
// the scheduler starts it and reads its JSON lines.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

// One environment named on the command line, e.g. "docker:image=mine".
struct EnvironmentRequest {
  std::string name;
  std::map<std::string, std::string> options;
  std::string text;  // as the user wrote it
};
// Throws UsageError naming the valid environments or options.
EnvironmentRequest parse_environment_request(const std::string& text);
std::vector<std::string> environment_names();

struct WorkerLaunch {
  std::vector<std::string> worker_args;  // "worker", "--workload", ...; no --data
  std::string data;                      // "synthetic" or a folder on the host
  // Thread and BLAS settings, set identically in every environment.
  std::vector<std::pair<std::string, std::string>> env;
};

struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // for the launched process
};

struct EnvironmentContext {
  std::filesystem::path self_exe;  // this dlcbench binary
  std::string run_id;
};

class Environment {
 public:
  virtual ~Environment() = default;
  virtual std::string name() const = 0;
  // Checks that the runtime can run workers here and builds what it needs
  // (an image). Throws EnvironmentUnavailable with a message that says how to
  // fix it.
  virtual void prepare() = 0;
  // `instance` names this launch uniquely (the container name).
  virtual LaunchCommand command(const WorkerLaunch& launch, const std::string& instance) const = 0;
  // Removes what a failed or stopped launch may have left (a container that
  // outlived its client).
  virtual void cleanup(const std::string& /*instance*/) {}
  // Runtime version, image, command template: recorded in the manifest.
  virtual nlohmann::json describe() const = 0;
};

std::unique_ptr<Environment> make_environment(const EnvironmentRequest& request,
                                              const EnvironmentContext& context);

}  // namespace dlcbench
