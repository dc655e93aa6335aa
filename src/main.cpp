// dlcbench: what a container costs a deep-learning workload. This binary is
// the orchestrator and the reports; it loads no deep-learning framework. The
// worker it launches on the host and inside containers is dlcbench-worker
// (cli/worker_main.cpp), the same file on both sides.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace dlcbench::cli;
  CLI::App app{"dlcbench: measure what a container costs a deep-learning workload"};
  int exit_code = dlcbench::kExitOk;
  add_run_command(app, exit_code);
  add_explain_command(app, exit_code);
  add_calibrate_command(app, exit_code);
  add_worker_forward_command(app, exit_code);
  add_data_command(app, exit_code);
  add_list_command(app, exit_code);
  add_report_command(app, exit_code);
  add_compare_command(app, exit_code);
  add_store_command(app, exit_code);
  add_history_command(app, exit_code);
  add_gate_command(app, exit_code);
  add_doctor_command(app, exit_code);
  add_slurm_node_command(app, exit_code);
  add_slurm_allreduce_command(app, exit_code);
  add_k8s_command(app, exit_code);
  return run_program(app, argc, argv, exit_code);
}
