// The subcommands of the dlcbench binary, one file each.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/exit_codes.h"

namespace dlcbench::cli {

// Each adds its subcommand to the app; the callback runs it and sets the exit
// code through the returned reference.
// dlcbench-worker's one command (worker_command.cpp, linked into that
// program only), and `dlcbench worker`, which hands its arguments to
// dlcbench-worker beside the binary (worker_forward.cpp).
void add_worker_command(CLI::App& app, int& exit_code);
void add_loadgen_command(CLI::App& app, int& exit_code);  // serve's client, on the host
void add_worker_forward_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);    // a run with variants
void add_calibrate_command(CLI::App& app, int& exit_code);  // an A/A run
void add_compare_command(CLI::App& app, int& exit_code);    // two runs' reports side by side
void add_store_command(CLI::App& app, int& exit_code);      // the results store: add, list
void add_history_command(CLI::App& app, int& exit_code);    // the stored overheads over time
void add_gate_command(CLI::App& app, int& exit_code);       // pass or fail a run for CI
void add_data_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_doctor_command(CLI::App& app, int& exit_code);
// What a job step of `run --slurm` runs on its node (hidden from --help).
void add_slurm_node_command(CLI::App& app, int& exit_code);
void add_slurm_allreduce_command(CLI::App& app, int& exit_code);
void add_k8s_command(CLI::App& app, int& exit_code);  // Kubernetes Job manifests, one per node

// The command line as the user typed it, recorded in the manifest.
void set_invocation(int argc, char** argv);
const std::vector<std::string>& invocation();

// What both programs' main() does: records the command line, keeps the
// standard descriptors open, parses and runs the chosen command, and turns
// what escapes it into a message and an exit code (invocation.cpp).
int run_program(CLI::App& app, int argc, char** argv, int& exit_code);

}  // namespace dlcbench::cli
