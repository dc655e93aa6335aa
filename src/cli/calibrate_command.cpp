// `dlcbench calibrate`: the baseline against a copy of itself, interleaved
// (an A/A run): this machine's noise floor, and the rounds a --precision
// needs. A run like any other (run_command.h), with its environments chosen.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/run_command.h"

namespace dlcbench::cli {

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  o->calibrate = true;
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Measure the baseline against a copy of itself, interleaved (an A/A run), and print this machine's noise floor: "
      "the smallest overhead a run of this size can resolve, and the rounds a given --precision needs per workload");
  add_options_of_a_chosen_run(cmd, *o);
  cmd->callback([o, cmd, &exit_code] {
    if (!o->command.empty()) {
      std::cerr << "error: dlcbench calibrate measures dlcbench's own workloads; for a command, measure it against a "
                   "copy of its environment: dlcbench run --envs host,host -- COMMAND (an A/A run)\n";
      exit_code = kExitUsage;
      return;
    }
    if (!o->resume.empty()) {
      std::cerr << fmt::format("error: a calibration is resumed like any run: `dlcbench run --resume {}`\n", o->resume);
      exit_code = kExitUsage;
      return;
    }
    run_or_resume(*o, cmd, exit_code);
  });
}

}  // namespace dlcbench::cli
