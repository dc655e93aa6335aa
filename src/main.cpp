// dlcbench: what a container costs a deep-learning workload.
// One binary is both the orchestrator (`run`) and the worker it launches on
// the host and inside containers (`worker`), so both sides run identical code.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace dlcbench::cli;
  set_invocation(argc, argv);
  CLI::App app{"dlcbench: measure what a container costs a deep-learning workload"};
  app.set_version_flag("--version", DLCBENCH_VERSION);
  app.require_subcommand(1);
  int exit_code = kExitOk;
  add_run_command(app, exit_code);
  add_worker_command(app, exit_code);
  add_data_command(app, exit_code);
  add_list_command(app, exit_code);
  add_report_command(app, exit_code);
  add_doctor_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
