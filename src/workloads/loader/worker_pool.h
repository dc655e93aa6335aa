// Worker processes that prepare batches and hand them over through POSIX
// shared memory, the way PyTorch's DataLoader does with num_workers > 0:
// each batch is a segment of its own in /dev/shm (shm_open), written by a
// worker and mapped by the training process, which unlinks it once mapped.
// A container whose /dev/shm is too small for the batches in flight kills
// the writing worker with SIGBUS, as it kills DataLoader workers; the pool
// reports the worker, its signal and the batch, and hides nothing.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlcbench::loader {

// Fills batch `index`'s bytes at `out`, in a worker process. It may throw:
// the message reaches the training process.
using FillBatch = std::function<void(std::uint64_t index, std::byte* out)>;

struct PoolSettings {
  int workers = 4;
  int prefetch = 2;  // batches asked of each worker ahead of the one consumed
  std::size_t batch_bytes = 0;
  // Goes into every segment's name, "dlcbench-loader-<token>-<pid>-<batch>",
  // so whoever started the process can remove what a kill left behind
  // (remove_segments). Letters, digits, '.', '_' and '-' only; empty or
  // anything else: this process's own.
  std::string token;
};

// Unlinks every segment in `folder` of the pools with `token` (a launch
// killed before its pool could clean up) and returns their names.
std::vector<std::string> remove_segments(const std::string& token, const std::string& folder = "/dev/shm");

// One batch, mapped read-only; valid until the next call to next().
struct BatchView {
  const std::byte* data = nullptr;
  std::size_t bytes = 0;
  std::uint64_t index = 0;
  double wait_seconds = 0;  // how long next() blocked for it
};

// A worker process ended while batches were asked of it.
struct WorkerLost : std::runtime_error {
  WorkerLost(const std::string& what, int worker_number, pid_t worker_pid, int wait_status, std::uint64_t batch_index)
      : std::runtime_error(what), worker(worker_number), pid(worker_pid), status(wait_status), batch(batch_index) {}
  int worker;
  pid_t pid;
  int status;           // as waitpid gives it
  std::uint64_t batch;  // the batch it was to deliver next
};

// A worker could not deliver a batch and said why (shm_open or ftruncate
// failed, the data file could not be read).
struct BatchFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WorkerPool {
 public:
  // Starts the workers (fork, no exec: they run `fill` on what this process
  // holds, as DataLoader's do). Call it before this process starts threads.
  WorkerPool(const PoolSettings& settings, FillBatch fill);
  // Ends the workers (SIGKILL), reaps them and unlinks the segments of the
  // batches asked for and not consumed.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The next batch in order (0, 1, 2, ...), waiting for it. Throws WorkerLost
  // or BatchFailed.
  BatchView next();

  const std::vector<pid_t>& worker_pids() const { return pids_; }
  // The most bytes of shared memory the batches asked for can hold at once.
  std::size_t in_flight_bytes() const;
  const PoolSettings& settings() const { return settings_; }

 private:
  std::string segment_name(std::uint64_t index) const;
  void stop_workers();
  void ask_ahead();
  void release_current();
  [[noreturn]] void lost(int worker, std::uint64_t index);

  PoolSettings settings_;
  std::string token_;            // this pool's part of every segment's name
  std::vector<pid_t> pids_;
  std::vector<int> sockets_;     // the training process's end, one per worker
  std::uint64_t asked_ = 0;      // batches asked for
  std::uint64_t consumed_ = 0;   // batches handed out by next()
  void* mapped_ = nullptr;       // the batch handed out last
  std::size_t mapped_bytes_ = 0;
};

// How a process ended, from waitpid's status: "killed by signal 7 (SIGBUS:
// bus error)" or "exited with status 3".
std::string describe_wait_status(int status);

}  // namespace dlcbench::loader
