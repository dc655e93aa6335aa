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
    store->add(run_to_store(manifest, content.records, analysis, dir));
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
  try {
    const auto store = open_store(where);
    for (const auto& folder : run_folders(dir)) {
      const LoadedRun run = load_run(folder);
      if (!storable(run.manifest.status)) continue;
      store->add(run_to_store(run.manifest, run.content.records, run.analysis, folder));
      std::cout << fmt::format("stored {} in {}\n", folder.string(), store->description());
    }
  } catch (const StoreError& e) {
    std::cerr << fmt::format("error: {}; the nodes' folders under {} are complete: `dlcbench store add {}` adds "
                             "them once the store is mended\n",
                             e.what(), dir.string(), dir.string());
    return false;
  }
  return true;
}

}  // namespace dlcbench::cli
