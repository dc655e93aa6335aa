// Labelled examples read straight from a data set's original files, one
// pread(2) per example, for `--input disk`: every training step then pays
// the file system's cost (a container's overlay or bind mount included),
// the way a data loader that does not cache would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/example_reader.h"

namespace dlcbench {

// dataset: "mnist" or "cifar10"; location as for the in-memory loaders.
// Throws UsageError for a data set that cannot be read per example.
std::unique_ptr<ExampleReader> open_example_reader(const std::string& dataset,
                                                   const std::filesystem::path& location);

}  // namespace dlcbench
