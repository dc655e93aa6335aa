#include "runtimes/host.h"

#include <filesystem>

namespace dlcbench {
namespace {

class HostEnvironment : public Environment {
 public:
  explicit HostEnvironment(EnvironmentContext context) : context_(std::move(context)) {}
  std::string name() const override { return "host"; }
  void prepare() override {}

  LaunchCommand command(const WorkerLaunch& launch, const std::string&) const override {
    LaunchCommand c;
    if (launch.program == WorkerLaunch::Program::noop) {
      c.argv = {noop_program_beside(context_.self_exe).string()};
      return c;
    }
    c.argv.push_back(context_.self_exe.string());
    c.argv.insert(c.argv.end(), launch.worker_args.begin(), launch.worker_args.end());
    c.argv.push_back("--data");
    c.argv.push_back(launch.data);
    if (!launch.io_target.empty()) {
      c.argv.push_back("--path");
      c.argv.push_back(io_path_for(launch.io_target, false));
    }
    c.env = launch.env;
    return c;
  }

  nlohmann::json describe() const override {
    return {{"name", "host"}, {"command", {context_.self_exe.string(), "worker", "..."}}};
  }

 private:
  EnvironmentContext context_;
};

}  // namespace

std::unique_ptr<Environment> make_host_environment(const EnvironmentContext& context) {
  return std::make_unique<HostEnvironment>(context);
}

}  // namespace dlcbench
