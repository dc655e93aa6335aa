// `loader`: what a training job's data loader with worker processes does
// (PyTorch's DataLoader with num_workers > 0). `workers` processes read
// MNIST or CIFAR-10 examples from the data set's files, decode and augment
// them (augment.h) and hand each batch over through its own POSIX
// shared-memory segment (worker_pool.h), `prefetch` batches ahead per
// worker. The training process maps each batch and runs a real training step
// on it (linear_classifier.h). The figure is samples per second; each
// operation's detail says how long the step waited for data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/data_need.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

inline constexpr const char* kLoaderWorkload = "loader";
// The variable through which the orchestrator gives a launch's loader the
// token its shared-memory segments are named with, so that it can remove
// them after a launch that was killed (loader::remove_segments).
inline constexpr const char* kLoaderTokenVariable = "DLCBENCH_LOADER_TOKEN";
// Batches per timed operation: enough that one operation spans every worker
// several times over, so its figure is the pipeline's rate, not one batch's.
inline constexpr int kLoaderBatchesPerOperation = 8;

// The data set a loader variant reads ("mnist", "cifar10"), as the planning
// checks and the data readers take it.
DataNeed loader_data_need(const std::string& dataset);

// Bytes of one batch in shared memory: labels, then `batch` images of
// channels x edge x edge floats.
std::uint64_t loader_batch_bytes(const std::string& dataset, std::int64_t batch, std::int64_t edge);

// params: variant (the data set), size (the output edge), batch, workers,
// prefetch, examples (opened by the caller), threads (the BLAS's), seed.
// Starts the worker processes; call it before anything starts threads.
std::unique_ptr<MicroBenchmark> make_loader(const MicroParams& params);

}  // namespace dlcbench
