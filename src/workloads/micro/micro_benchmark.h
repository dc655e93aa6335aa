// What a micro-benchmark (gemm, hpl, hpcg, stream, io-seq, io-lat) provides
// to the worker: set-up outside the timing, then one timed operation per
// iteration. The worker prints one sample line per iteration, as it does for
// a training step, so micro-benchmarks share the environments, statistics and
// reports of training.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/example_reader.h"

namespace dlcbench {

// The parameters of one micro-benchmark case, as the worker receives them.
// Sizes are explicit by the time the worker runs: the plan resolves the
// defaults (e.g. STREAM's array size from the last-level cache) so that the
// case id names what was measured.
struct MicroParams {
  std::string variant;     // gemm: sgemm|dgemm; stream: copy|scale|add|triad;
                           // io-seq: write|read; hpl, hpcg, io-lat: empty
  std::int64_t size = 0;   // gemm, hpl: matrix order n; hpcg: local grid edge
                           // (nx = ny = nz); stream: elements per array;
                           // io-seq, io-lat: file bytes
  std::int64_t block = 0;  // io-seq, io-lat: bytes per request
  bool direct = true;      // io-seq: O_DIRECT (true) or buffered with fsync
  std::string path;        // io-seq, io-lat: the folder the scratch file goes in
  int threads = 1;         // BLAS / OpenMP threads
  std::uint64_t seed = 42;
  // loader: examples per batch, worker processes, batches each asks ahead,
  // and the data set's examples, opened by the worker command.
  int batch = 0;
  int workers = 0;
  int prefetch = 0;
  std::shared_ptr<ExampleReader> examples;
};

// One timed iteration.
struct MicroResult {
  double seconds = 0;    // wall time of the timed operation
  double work = 0;       // what it did: floating-point operations (gemm, hpl,
                         // hpcg) or bytes moved (stream, io); 0 for io-lat
  nlohmann::json detail = nlohmann::json::object();  // e.g. {"scaled_residual": 0.8}
};

// A result that fails the benchmark's own validation (HPL's scaled residual,
// HPCG's residual reduction or symmetry, STREAM's array check): the sample
// does not count and the launch fails with this message.
struct ValidationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Operation `i` of a launch (the first `warmup` are warm-up) as its "sample"
// line: the one form the orchestrator reads, from the worker and from
// dlcbench-probe alike.
inline nlohmann::json micro_sample_record(const MicroResult& r, int i, int warmup, double cpu_seconds) {
  const bool warming = i < warmup;
  nlohmann::json sample = {{"type", "sample"},
                           {"phase", warming ? "warmup" : "measured"},
                           {"iter", warming ? i : i - warmup},
                           {"seconds", r.seconds},
                           {"cpu_seconds", cpu_seconds},
                           {"work", r.work}};
  if (!r.detail.empty()) sample["detail"] = r.detail;
  return sample;
}

class MicroBenchmark {
 public:
  virtual ~MicroBenchmark() = default;
  // Parameters as run (n, bytes per array, file system of the path, ...):
  // printed in the worker's fingerprint.
  virtual nlohmann::json describe() const = 0;
  // One timed iteration. Throws ValidationError when the result is wrong.
  virtual MicroResult run() = 0;
};

}  // namespace dlcbench
