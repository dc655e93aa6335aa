// What a back end (a framework that trains the networks) provides to the
// worker. The worker does the timing; the back end does the work.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/parameters.h"
#include "core/case_spec.h"
#include "data/dataset.h"
#include "workloads/registry.h"

namespace dlcbench {

class TrainingSession {
 public:
  virtual ~TrainingSession() = default;
  // Not timed: makes mini-batch `index` (wrapping around the data set) the
  // input of the next step. The data is already in memory.
  virtual void load_batch(std::size_t index) = 0;
  // For --input disk: makes the batch just read from the files (batch x
  // example floats, batch labels) the input of the next step. The memory
  // stays the caller's until the next call.
  virtual void load_examples(const float* features, const std::int64_t* labels);
  // For --input disk with a language model: window `index` (its position in
  // the pass over the text decides when the hidden state restarts), input
  // and target tokens [sequence, batch] row-major, read from the file.
  virtual void load_tokens(std::size_t index, const std::int64_t* input, const std::int64_t* target);
  // Timed: one forward pass, backward pass and optimiser step on the loaded
  // batch. Returns the loss of that forward pass.
  virtual double train_step() = 0;
  // What the last train_step measured beside the worker's wall clock, put in
  // its sample line: the cuda back end's GPU time between CUDA events around
  // the step ({"gpu_seconds": ...}). Empty for the CPU back ends.
  virtual nlohmann::json step_detail() const { return nlohmann::json::object(); }
  // Trainable parameters of the network as built, for the fingerprint: the
  // proof that every environment and back end trained the same network.
  virtual std::int64_t parameter_count() const = 0;
  // The trainable tensors in the shared layout (backends/parameters.h), and
  // replacing them (the optimiser's state starts again): the agreement tests
  // start every back end from the same weights this way.
  virtual ParameterSet parameters() const = 0;
  virtual void set_parameters(const ParameterSet& parameters) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Library name and version and the thread settings in force, for the
  // fingerprint.
  virtual nlohmann::json describe() const = 0;
  // Builds the network and its optimiser and stages the data. Throws
  // UsageError when the case cannot run (a batch larger than the data set).
  virtual std::unique_ptr<TrainingSession> prepare(const WorkloadInfo& workload, const TrainingData& data,
                                                   const CaseSpec& spec) = 0;
};

// Creates the back end and applies the thread count before any work, so the
// setting holds for everything it runs.
std::unique_ptr<Backend> make_backend(const std::string& name, int threads);

}  // namespace dlcbench
