// A run as the results store keeps it (issue 40): the run model's own
// records (the manifest and results.jsonl's lines, as written) and, per
// comparison, the one typed headline figure every report and the gate use,
// with the facts a change between two stored runs may come from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "model/manifest.h"

namespace dlcbench {

// One environment against the run's baseline, for one case.
struct StoredComparison {
  std::string case_id, env, baseline;
  Verdict verdict = Verdict::too_few_runs;
  bool compared = true;          // false: a mismatch nobody asked for stopped it
  bool mismatch_allowed = false;  // compared despite one (--allow-mismatch)
  Headline headline;              // the figure every format reports (form, basis, ratio and its 95% CI)
  double margin = 0;              // of the equivalence verdict
  std::size_t runs_compared = 0;
  // What the environment was, by name: "runtime version", "image",
  // "options", "kernel", "dlcbench", ... ("" where unknown).
  std::map<std::string, std::string> facts;
};

struct StoredRun {
  std::int64_t key = 0;  // the store's own
  std::string run_id;
  std::string machine;  // the orchestrator's host name; a cluster run's node name
  std::string started_at, ended_at;  // ISO 8601, UTC
  std::string status;                // the manifest's: "completed", "interrupted", ...
  std::string folder;                // where the run was written
  std::string baseline;
  std::string dlcbench_version;
  bool calibration = false;  // `dlcbench calibrate`: an A/A run
  std::vector<StoredComparison> comparisons;
};

// What one run adds to the store.
struct RunToStore {
  StoredRun run;
  nlohmann::json manifest;           // as the model writes it
  std::vector<std::string> records;  // results.jsonl's records, one JSON text each
};

// A run the store keeps: completed, with or without failed launches (an
// interrupted run is added by the --resume that completes it).
inline bool storable(RunStatus status) {
  return status == RunStatus::completed || status == RunStatus::completed_with_failures;
}

// The run in `folder`, from its manifest, its records and their analysis.
// The manifest records the names of passed variables only (a value may be a
// secret), and so does the store.
RunToStore run_to_store(const Manifest& manifest, const std::vector<nlohmann::json>& records,
                        const Analysis& analysis, const std::filesystem::path& folder);

}  // namespace dlcbench
