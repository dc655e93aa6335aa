// A finished run into the results store (issue 40), as `run`, `explain`,
// `calibrate`, `--resume` and a Slurm run do it at their end: the run's
// folder is the record, the store a copy for history and gate, so a store
// that fails loses nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "core/results_file.h"
#include "model/manifest.h"
#include "store/store_location.h"

namespace dlcbench::cli {

struct StoreOutcome {
  bool stored = false;
  std::string description;  // "SQLite /path (WAL)"
  std::string error;        // the StoreError's message, with what to do
};

// Adds the run in `dir` (its manifest, records and analysis) to the store at
// `where`; StoreError becomes `error`.
StoreOutcome add_to_store(const StoreLocation& where, const Manifest& manifest, const ResultsContent& content,
                          const Analysis& analysis, const std::filesystem::path& dir);

// The run folders `dir` stands for: itself, or a cluster run's nodes' (those
// that wrote one).
std::vector<std::filesystem::path> run_folders(const std::filesystem::path& dir);

// A cluster run at its end: each node's completed run into the store, by the
// process that submitted it. Prints what it stored, and any error with what
// to do; false when the store failed.
bool add_cluster_to_store(const StoreLocation& where, const std::filesystem::path& dir);

}  // namespace dlcbench::cli
