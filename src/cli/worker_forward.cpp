// `dlcbench worker ...`: the worker is a program of its own (dlcbench-worker,
// which links the back ends), so this binary hands the arguments to it, as
// they are, by exec: the same process, its output and exit status.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/companion_programs.h"

namespace dlcbench::cli {

void add_worker_forward_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("worker", "Run one case here and print JSON lines (used by `run`; runs "
                                           "dlcbench-worker beside this binary)");
  // Everything after `worker`, --help included, is dlcbench-worker's to read.
  cmd->set_help_flag();
  cmd->allow_extras();
  cmd->prefix_command();
  cmd->callback([cmd, &exit_code] {
    const std::filesystem::path worker = worker_program_beside(std::filesystem::read_symlink("/proc/self/exe"));
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
