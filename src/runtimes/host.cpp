#include "runtimes/host.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/scratch_dir.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

class HostEnvironment : public Environment {
 public:
  explicit HostEnvironment(EnvironmentContext context) : context_(std::move(context)) {}
  std::string name() const override { return "host"; }
  // A private TMPDIR for the worker (hpcc writes its input and output
  // there): removed with the run even when a worker is killed.
  void check() override {
    if (!context_.noop_only && !context_.probe_only && !fs::exists(context_.worker_exe))
      throw EnvironmentUnavailable(fmt::format("{} is missing: it is built with dlcbench (target dlcbench-worker); "
                                               "rebuild with scripts/build.sh",
                                               context_.worker_exe.string()));
  }
  void prepare() override {
    check();
    scratch_.emplace(scratch_prefix());
  }
  void finish() override { scratch_.reset(); }
  ServeRoute prepare_serving() override { return host_network_route(); }

  std::vector<std::string> remove_leftovers() override {
    // A session killed with SIGKILL leaves its folder; the run id names it.
    return remove_scratch_dirs_left(scratch_prefix(), scratch_ ? scratch_->path() : fs::path());
  }

  LaunchCommand command(const WorkerLaunch& launch, const std::string&) const override {
    LaunchCommand c;
    if (launch.program == WorkerLaunch::Program::noop) {
      c.argv = {noop_program_beside(context_.worker_exe).string()};
      return c;
    }
    if (launch.program == WorkerLaunch::Program::command) {
      const std::string data = launch.data == "synthetic" ? "" : fs::absolute(launch.data).string();
      const std::string workdir = launch.command->workdir.empty() ? "" : fs::absolute(launch.command->workdir).string();
      c.argv = {probe_program_beside(context_.worker_exe).string()};
      const auto args = probe_arguments(launch, data, workdir);
      c.argv.insert(c.argv.end(), args.begin(), args.end());
      c.env = command_variables(launch, data, workdir);
      return c;
    }
    c.argv.push_back(context_.worker_exe.string());
    c.argv.insert(c.argv.end(), launch.worker_args.begin(), launch.worker_args.end());
    c.argv.push_back("--data");
    c.argv.push_back(launch.data);
    if (!launch.io_target.empty()) {
      c.argv.push_back("--path");
      c.argv.push_back(io_path_for(launch.io_target, false));
    }
    c.env = launch.env;
    if (scratch_) c.env.emplace_back("TMPDIR", scratch_->path().string());
    return c;
  }

  nlohmann::json describe() const override {
    return {{"name", "host"}, {"command", {context_.worker_exe.string(), "worker", "..."}}};
  }

 private:
  std::string scratch_prefix() const { return "dlcbench-host-" + context_.run_id; }

  EnvironmentContext context_;
  std::optional<ScratchDir> scratch_;
};

}  // namespace

std::unique_ptr<Environment> make_host_environment(const EnvironmentContext& context) {
  return std::make_unique<HostEnvironment>(context);
}

}  // namespace dlcbench
