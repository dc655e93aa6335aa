// `dlcbench explain ENV`: ENV against the baseline and against variants of
// it with one isolation feature changed at a time: each feature's share of
// the overhead. A run like any other (run_command.h), with its environments
// chosen by the ablation (orchestrator/ablation.h).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/run_command.h"
#include "model/environment_request.h"

namespace dlcbench::cli {

void add_explain_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Measure an environment against the baseline and against variants of it with one isolation feature changed at "
      "a time (seccomp, namespaces, cgroup limits, scratch storage, gVisor's options): each feature's share of the "
      "overhead");
  cmd->add_option("environment", o->explain, "The environment to explain, with its options, e.g. docker:cpus=1 or runsc")
      ->required()
      ->check(not_empty("an environment, e.g. docker or runsc:platform=ptrace") & checked_by([](const std::string& text) {
                const auto r = parse_environment_request(text);
                check_options_fit_machine(r.name, r.container);
              }));
  cmd->add_option("--features", o->features,
                  "Features to change, comma-separated (default: every one that applies): seccomp, network, ipc, "
                  "pid, limits, scratch, platform, file-access, overlay")
      ->check(not_empty("features, e.g. seccomp,network"));
  add_options_of_a_chosen_run(cmd, *o);
  cmd->callback([o, cmd, &exit_code] {
    if (!o->command.empty()) {
      std::cerr << "error: dlcbench explain changes one isolation feature at a time for dlcbench's own workloads; "
                   "a command cannot be explained yet: compare it with dlcbench run --envs host,ENV -- COMMAND, "
                   "and give the variants as environments (e.g. docker,docker:seccomp=unconfined)\n";
      exit_code = kExitUsage;
      return;
    }
    if (!o->resume.empty()) {
      // The positional environment is required, so resuming goes by run.
      std::cerr << fmt::format("error: an explain run is resumed like any run: `dlcbench run --resume {}` (its "
                               "manifest holds the variants)\n",
                               o->resume);
      exit_code = kExitUsage;
      return;
    }
    run_or_resume(*o, cmd, exit_code);
  });
}

}  // namespace dlcbench::cli
