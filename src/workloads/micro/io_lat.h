// ioping-style random reads of params.block bytes with O_DIRECT from a params.size-byte file.
//
// The scratch file is written (O_DIRECT) and fsynced at construction,
// untimed. Each run() is one O_DIRECT read of one block at a block-aligned
// offset drawn from a generator seeded with params.seed (ioping -D); its
// latency is the sample. params.direct is not consulted: the reads are
// always direct, and a file system that refuses O_DIRECT is a UsageError.
#pragma once

#include <cstdint>
#include <memory>
#include <random>

#include "workloads/micro/io_file.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

std::unique_ptr<MicroBenchmark> make_io_lat(const MicroParams& params);

// The benchmark object behind make_io_lat, exposed for tests.
class IoLatBenchmark final : public MicroBenchmark {
 public:
  explicit IoLatBenchmark(const MicroParams& params);

  // As io-seq's ({"benchmark": "io-lat", "mode": "read", "direct": true, ...})
  // plus "request_bytes".
  nlohmann::json describe() const override;
  // seconds: the latency of one read; work: the block's bytes;
  // detail: {"offset"}. Throws ValidationError when the block read back is
  // not what was written.
  MicroResult run() override;

  // Test hook: the scratch file.
  const ScratchFile& file() const { return file_; }

 private:
  std::string path_;
  ScratchFile file_;
  std::mt19937_64 generator_;
};

}  // namespace dlcbench
