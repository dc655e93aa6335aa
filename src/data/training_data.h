// Loads what a workload trains on: its real data set from the folder the
// user gave, or synthetic data of the same shape.
#pragma once

#include <cstdint>
#include <string>

#include "data/dataset.h"
#include "workloads/models/model_spec.h"

namespace dlcbench {

// location: a data folder (or the data root holding <dataset>/), or
// "synthetic". Throws DataError naming the file and the fix.
TrainingData load_training_data(const models::ModelSpec& model, const std::string& location, int batch,
                                std::uint64_t seed);

// The same checks without building the tensors' input, for the orchestrator
// to fail before launching anything.
void check_training_data(const models::ModelSpec& model, const std::string& location);

}  // namespace dlcbench
