// `dlcbench worker ...`: the worker is a program of its own (dlcbench-worker,
// which links the back ends), so this binary hands the arguments to it, as
// they are, by exec: the same process, its output and exit status. Options
// the worker would refuse are refused here first, with the same definitions
// (cli/worker_options.h) and so the same message and exit status 2: a
// refusal then costs milliseconds, not the worker's start, which loads
// LibTorch and oneDNN (about 0.7 CPU seconds).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/worker_options.h"
#include "core/companion_programs.h"

namespace dlcbench::cli {
namespace {

// True when dlcbench-worker's option parsing would accept `args` (what
// follows `worker`); false after printing its refusal. --help is the
// worker's to answer.
bool worker_would_parse(const std::vector<std::string>& args) {
  CLI::App app{"dlcbench"};
  WorkerOptions options;
  add_worker_options(app, options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  reversed.push_back("worker");
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return true;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return false;
  }
  return true;
}

}  // namespace

void add_worker_forward_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("worker", "Run one case here and print JSON lines (used by `run`; runs "
                                           "dlcbench-worker beside this binary)");
  // Everything after `worker`, --help included, is dlcbench-worker's to read.
  cmd->set_help_flag();
  cmd->allow_extras();
  cmd->prefix_command();
  cmd->callback([cmd, &exit_code] {
    const std::filesystem::path worker = worker_program_beside(std::filesystem::read_symlink("/proc/self/exe"));
    if (!worker_would_parse(cmd->remaining())) {
      exit_code = kExitUsage;
      return;
    }
    std::vector<std::string> args = {worker.string(), "worker"};
    for (const auto& arg : cmd->remaining()) args.push_back(arg);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(worker.c_str(), argv.data());
    const int error = errno;
    std::cerr << "error: cannot run " << worker.string() << ": " << std::strerror(error)
              << "; it is built with dlcbench (target dlcbench-worker): rebuild with scripts/build.sh\n";
    exit_code = kExitFailure;
  });
}

}  // namespace dlcbench::cli
