#include "cli/store_recording.h"

#include <iostream>

#include <fmt/format.h>

#include "cli/loaded_run.h"
#include "model/cluster_manifest.h"
#include "store/results_store.h"
#include "store/stored_run.h"

namespace dlcbench::cli {

StoreOutcome add_to_store(const StoreLocation& where, const Manifest& manifest, const ResultsContent& content,
                          const Analysis& analysis, const std::filesystem::path& dir) {
  StoreOutcome out;
  try {
    const auto store = open_store(where);
    out.description = store->description();
    out.added = store->add(run_to_store(manifest, content.records, analysis, dir));
    out.stored = true;
  } catch (const StoreError& e) {
    out.error = e.what();
  }
  return out;
}

std::vector<std::filesystem::path> run_folders(const std::filesystem::path& dir) {
  if (!is_cluster_run(dir)) return {dir};
  std::vector<std::filesystem::path> out;
  for (const auto& node : cluster_nodes(read_cluster_manifest(dir)))
    if (std::filesystem::exists(node_run_folder(dir, node) / "manifest.json")) out.push_back(node_run_folder(dir, node));
  return out;
}

bool add_cluster_to_store(const StoreLocation& where, const std::filesystem::path& dir) {
  for (const auto& node : run_folders(dir)) {
    const LoadedRun run = load_run(node);
    if (run.manifest.status != RunStatus::completed && run.manifest.status != RunStatus::completed_with_failures)
      continue;
    const StoreOutcome stored = add_to_store(where, run.manifest, run.content, run.analysis, node);
    if (!stored.stored) {
      std::cerr << fmt::format("error: {}; the node's folder {} is complete: `dlcbench store add {}` adds the run "
                               "once the store is mended\n",
                               stored.error, node.string(), dir.string());
      return false;
    }
    std::cout << fmt::format("stored {} in {}\n", node.string(), stored.description);
  }
  return true;
}

}  // namespace dlcbench::cli
