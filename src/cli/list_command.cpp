// `dlcbench list`: the workloads, back ends, environments and data sets;
// with --models, each network layer by layer.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/container_options.h"
#include "core/process.h"
#include "data/dataset.h"
#include "data/fetch.h"
#include "model/environment_request.h"
#include "workloads/micro/external_tools.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"
#include "gpu/gpu_loader.h"

namespace dlcbench::cli {
namespace {

void print_models() {
  for (const auto& w : workloads()) {
    const auto& m = w.model;
    std::cout << fmt::format("{} ({}; trains on {})\n", w.name, w.description, m.dataset);
    // Columns as wide as this network's longest name and description.
    const auto layers = m.layers();
    std::size_t name_width = 0, description_width = 0;
    for (const auto& layer : layers) {
      name_width = std::max(name_width, layer.name.size());
      description_width = std::max(description_width, layer.description.size());
    }
    for (const auto& layer : layers)
      std::cout << fmt::format("  {:<{}}  {:<{}}  {:>10} params\n", layer.name, name_width, layer.description,
                               description_width, layer.parameters);
    const int batch = m.default_batch("cpu");
    std::cout << fmt::format("  {} parameters; {:.3f} GFLOP per training example, {:.2f} GFLOP per training "
                             "batch of {} (default batch on cpu; {} on gpu)\n\n",
                             m.parameter_count(), m.training_flops_per_example() / 1e9,
                             batch * m.training_flops_per_example() / 1e9, batch, m.default_batch("gpu"));
  }
  std::cout << "FLOPs count the multiply-adds of convolution, dense and LSTM layers (2 each), forward plus a\n"
               "backward pass of twice the forward; the LSTM's per example is per sequence of its steps.\n";
}

}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "Workloads, back ends, environments and data sets");
  auto models_only = std::make_shared<bool>(false);
  cmd->add_flag("--models", *models_only, "Print each network's layers, parameter count and FLOPs");
  cmd->callback([models_only, &exit_code] {
    exit_code = kExitOk;
    if (*models_only) return print_models();
    std::cout << "workloads:\n";
    for (const auto& w : workloads())
      std::cout << fmt::format("  {:<10} {} [{}; {} parameters]\n", w.name, w.description, w.unit,
                               w.model.parameter_count());
    std::cout << fmt::format("  {:<10} {} [s/start; run by the orchestrator, no back end]\n", kStartupWorkload,
                             kStartupDescription);
    std::cout << "micro-benchmarks (name[/variant][:key=value,...]; --path for the I/O ones):\n";
    for (const auto& m : micro_workloads()) {
      std::vector<std::string> defaults;
      for (const auto& key : m.options) defaults.push_back(fmt::format("{}={}", key, m.defaults.at(key)));
      std::string units = m.figure_unit;
      for (const auto& [variant, unit] : m.variant_units) units += fmt::format(", {}: {}", variant, unit);
      std::string installed;
      if (m.gpu && !gpu_plugin_built()) installed = "; " + gpu_plugin_not_built();
      if (const ExternalTool* tool = find_external_tool(m.name))
        installed = tool_program(*tool) ? fmt::format("; {} installed", tool_program(*tool)->string())
                                        : fmt::format("; not installed: apt-get install {}", tool->package);
      std::cout << fmt::format("  {:<10} {} [{}; each run the {} of its operations{}]\n", m.name, m.description,
                               units, m.run_statistic == "min" ? "best" : m.run_statistic, installed);
      std::cout << fmt::format("  {:<10} {}options {}; {} warm-up and {} measured operations per launch\n", "",
                               m.variants.empty() ? "" : fmt::format("variants {}; ", fmt::join(m.variants, ", ")),
                               fmt::join(defaults, ", "), m.warmup, m.iters);
    }
    std::cout << "back ends:\n";
    for (const auto& b : backends()) {
      const std::string missing = backend_unavailable(b.name);
      std::cout << fmt::format("  {:<10} {} (devices: {}){}\n", b.name, b.description, fmt::join(b.devices, ", "),
                               missing.empty() ? "" : "; " + missing);
    }
    std::cout << "environments:\n";
    for (const auto& e : environment_names()) {
      std::string found = e == "host" ? "always" : (find_program(runtime_program(e)) ? "installed" : "not installed");
      const auto& keys = option_keys(e);
      std::cout << fmt::format("  {:<12} {}{}\n", e, found,
                               keys.empty() ? "" : fmt::format("; options: {}", fmt::join(keys, ", ")));
    }
    std::cout << "  (`dlcbench doctor` checks that each can start a container here)\n";
    std::cout << fmt::format("data sets (fetch into {}):\n", default_data_root().string());
    for (const auto& d : fetchable_datasets())
      std::cout << fmt::format("  {:<10} `dlcbench data fetch {}`\n", d, d);
  });
}

}  // namespace dlcbench::cli
