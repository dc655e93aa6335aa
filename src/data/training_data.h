// Loads what a workload trains on: its real data set from the folder the
// user gave, or synthetic data of the same shape.
#pragma once

#include <cstdint>
#include <string>

#include "core/data_need.h"
#include "data/dataset.h"

namespace dlcbench {

// location: a data folder (or the data root holding <dataset>/), or
// "synthetic". Throws DataError naming the file and the fix.
TrainingData load_training_data(const DataNeed& need, const std::string& location, int batch,
                                std::uint64_t seed);

// The same checks without building the tensors' input, for the orchestrator
// to fail before launching anything.
void check_training_data(const DataNeed& need, const std::string& location);

// The folder the data set's files are read from, for a --data location
// (the data root or the data set's own folder), as its loader finds it.
std::filesystem::path training_data_folder(const DataNeed& need, const std::string& location);

// One sha256 for a data set's files in `folder` (those of its files that are
// there): of the lines "<sha256 of the file>  <name>", as SHA256SUMS lists
// them. Any changed byte changes it, so two environments that read different
// data are told apart in the fingerprint; "" when none of the files is there.
std::string data_files_digest(const std::string& dataset, const std::filesystem::path& folder);

}  // namespace dlcbench
