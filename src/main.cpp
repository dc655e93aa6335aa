// dlcbench: what a container costs a deep-learning workload.
// One binary is both the orchestrator (`run`) and the worker it launches on
// the host and inside containers (`worker`), so both sides run identical code.
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace {

// A closed standard descriptor (`dlcbench run >&-`) would be reused by the
// next file opened: results.jsonl as descriptor 1 would receive the console
// report. Each closed one reads and writes /dev/null instead.
void keep_standard_descriptors_open() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    const int null_fd = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      ::dup2(null_fd, fd);
      ::close(null_fd);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dlcbench::cli;
  keep_standard_descriptors_open();
  set_invocation(argc, argv);
  CLI::App app{"dlcbench: measure what a container costs a deep-learning workload"};
  app.set_version_flag("--version", DLCBENCH_VERSION);
  app.require_subcommand(1);
  int exit_code = kExitOk;
  add_run_command(app, exit_code);
  add_explain_command(app, exit_code);
  add_calibrate_command(app, exit_code);
  add_worker_command(app, exit_code);
  add_data_command(app, exit_code);
  add_list_command(app, exit_code);
  add_report_command(app, exit_code);
  add_doctor_command(app, exit_code);
  add_slurm_node_command(app, exit_code);
  add_slurm_allreduce_command(app, exit_code);
  add_k8s_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (104, 106, ...) would contradict "2 = bad input";
    // --help and --version are the parse "errors" that succeed.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: dlcbench could not allocate what this command needs; free memory or ask "
                 "for less (a smaller --batch or size)\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    // Each command turns the errors it expects into messages; this is the
    // last line, so that nothing ends in std::terminate.
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}
