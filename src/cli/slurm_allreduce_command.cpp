// `dlcbench slurm-allreduce`: the all-reduce of `run --slurm --allreduce`
// (cluster/allreduce_run.h; not for users to call). Under salloc it is the
// driver, which runs every round's srun steps and writes allreduce.jsonl;
// with --rank it is one rank of a step, on its node.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cluster/allreduce_run.h"
#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {

void add_slurm_allreduce_command(CLI::App& app, int& exit_code) {
  struct Options {
    AllreduceDriver driver;
    std::string run_folder;
    bool rank = false;
    std::string env, instance;
    std::vector<std::string> program_arguments;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("slurm-allreduce", "");  // no description: hidden from --help
  cmd->add_option("--run-folder", o->run_folder);
  cmd->add_option("--run-id", o->driver.run_id);
  cmd->add_option("--envs", o->driver.environments)->allow_extra_args(false);
  cmd->add_option("--rounds", o->driver.rounds);
  cmd->add_option("--seed", o->driver.seed);
  cmd->add_flag("--rank", o->rank);
  cmd->add_option("--env", o->env);
  cmd->add_option("--instance", o->instance);
  cmd->add_option("program_arguments", o->program_arguments);
  cmd->prefix_command(false);
  cmd->callback([o, &exit_code] {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    try {
      if (o->rank) {
        exit_code = run_allreduce_rank(o->env, o->instance, o->program_arguments, self);
      } else {
        o->driver.run_folder = o->run_folder;
        o->driver.program_arguments = o->program_arguments;
        exit_code = run_allreduce_driver(o->driver, self);
      }
    } catch (const std::exception& e) {
      std::cerr << "error: slurm-allreduce: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace dlcbench::cli
