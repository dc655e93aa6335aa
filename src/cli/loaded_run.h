// A run folder as `report` and `compare` read it: the manifest, the
// results and their analysis, with what a reader should know as notes; and
// where their text goes.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/analysis.h"
#include "model/manifest.h"
#include "core/results_file.h"

namespace dlcbench::cli {

struct LoadedRun {
  Manifest manifest;
  ResultsContent content;
  Analysis analysis;
};

// Reads what can be read; problems a reader should know of become notes, and
// a folder that is not a run at all is a UsageError naming what is missing.
LoadedRun load_run(const std::filesystem::path& dir);

// `text` to standard output ("" or "-") or into the file `output`.
void write_output(const std::string& text, const std::string& output);

}  // namespace dlcbench::cli
