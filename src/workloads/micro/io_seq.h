// dd-style sequential write or read (params.variant) of a params.size-byte file in params.block-byte requests.
//
// write: one run() writes the whole scratch file from offset 0 in block-sized
// requests; buffered runs end with an fsync inside the timing (dd
// conv=fsync), direct runs (O_DIRECT, dd oflag=direct) do not. Before each
// run, untimed, the file is truncated to zero, so every run allocates its
// blocks as dd writing a new file does.
// read: the file is written and fsynced once at construction; before each
// run, untimed, its pages are dropped from the page cache (fdatasync, then
// POSIX_FADV_DONTNEED) and the fraction still resident is recorded, so a
// report can tell when the page cache served a buffered read (dd after
// dropping caches; direct reads are dd iflag=direct).
#pragma once

#include <memory>

#include "workloads/micro/io_file.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

std::unique_ptr<MicroBenchmark> make_io_seq(const MicroParams& params);

// The benchmark object behind make_io_seq, exposed for tests.
class IoSeqBenchmark final : public MicroBenchmark {
 public:
  explicit IoSeqBenchmark(const MicroParams& params);

  // {"benchmark": "io-seq", "mode", "direct", "file_bytes", "block_bytes",
  //  "path", "fs_type", "mount_source"}
  nlohmann::json describe() const override;
  // detail: {"bytes", "requests"} plus "cache_resident_fraction" for reads
  // (null when it could not be measured).
  MicroResult run() override;

  bool writes() const { return write_; }
  // Test hook: the scratch file (its descriptor, its expected content).
  const ScratchFile& file() const { return file_; }

 private:
  bool write_;
  bool direct_;
  std::string path_;
  ScratchFile file_;
};

}  // namespace dlcbench
