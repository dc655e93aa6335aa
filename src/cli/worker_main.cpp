// dlcbench-worker: runs one case in the current environment (`worker`) and
// prints JSON lines. It holds the back ends (LibTorch, oneDNN, the reference
// engine) so that the dlcbench binary need not load them; `dlcbench worker`
// hands its arguments here.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace dlcbench::cli;
  CLI::App app{"dlcbench-worker: run one dlcbench case here and print JSON lines"};
  int exit_code = dlcbench::kExitOk;
  add_worker_command(app, exit_code);
  add_loadgen_command(app, exit_code);
  return run_program(app, argc, argv, exit_code);
}
