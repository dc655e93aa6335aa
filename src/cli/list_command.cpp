// `dlcbench list`: the workloads, back ends, environments and data sets.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/process.h"
#include "data/dataset.h"
#include "data/fetch.h"
#include "runtimes/environment.h"
#include "workloads/registry.h"

namespace dlcbench::cli {

void add_list_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "Workloads, back ends, environments and data sets");
  cmd->callback([&exit_code] {
    std::cout << "workloads:\n";
    for (const auto& w : workloads())
      std::cout << fmt::format("  {:<10} {} [{}; {} parameters, {:.2f} GFLOP per example per step]\n", w.name,
                               w.description, w.unit, w.model.parameter_count(),
                               w.model.training_flops_per_example() / 1e9);
    std::cout << "back ends:\n";
    for (const auto& b : backends())
      std::cout << fmt::format("  {:<10} {} (devices: {})\n", b.name, b.description, fmt::join(b.devices, ", "));
    std::cout << "environments:\n";
    for (const auto& e : environment_names()) {
      std::string found = e == "host" ? "always" : (find_program(e) ? "client found" : "not installed");
      std::cout << fmt::format("  {:<10} {}\n", e, found);
    }
    std::cout << fmt::format("data sets (fetch into {}):\n", default_data_root().string());
    for (const auto& d : fetchable_datasets())
      std::cout << fmt::format("  {:<10} `dlcbench data fetch {}`\n", d, d);
    exit_code = kExitOk;
  });
}

}  // namespace dlcbench::cli
