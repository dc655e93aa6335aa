#include "workloads/micro/io_seq.h"

#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/timer.h"

namespace dlcbench {

namespace {

bool parse_mode(const std::string& variant) {
  if (variant == "write") return true;
  if (variant == "read") return false;
  throw UsageError(fmt::format("io-seq has no mode '{}': choose write or read", variant));
}

ScratchFileSpec io_seq_spec(const MicroParams& params) {
  ScratchFileSpec spec;
  spec.benchmark = "io-seq";
  spec.dir = params.path;
  spec.file_bytes = params.size;
  spec.block_bytes = params.block;
  spec.direct = params.direct;
  spec.seed = params.seed;
  return spec;
}

}  // namespace

IoSeqBenchmark::IoSeqBenchmark(const MicroParams& params)
    : write_(parse_mode(params.variant)),
      direct_(params.direct),
      path_(canonical_folder(params.path)),
      file_(io_seq_spec(params)) {
  // A read needs something to read: written once here, in the mode the runs
  // read it, and fsynced; each run drops it from the page cache first.
  if (!write_) file_.fill();
}

nlohmann::json IoSeqBenchmark::describe() const {
  return {{"benchmark", "io-seq"},
          {"mode", write_ ? "write" : "read"},
          {"direct", direct_},
          {"file_bytes", file_.file_bytes()},
          {"block_bytes", file_.block_bytes()},
          {"path", path_},
          {"fs_type", file_.file_system().type},
          {"mount_source", file_.file_system().mount_source}};
}

MicroResult IoSeqBenchmark::run() {
  const std::int64_t bytes = file_.file_bytes();
  const std::int64_t block = file_.block_bytes();
  MicroResult result;
  result.work = static_cast<double>(bytes);
  result.detail = {{"bytes", bytes}, {"requests", file_.requests()}};

  if (write_) {
    // Untimed: back to an empty file, as dd's of= starts from.
    file_.truncate();
    Stopwatch watch;
    for (std::int64_t offset = 0; offset < bytes; offset += block) file_.write_request(offset);
    if (!direct_) file_.sync();  // dd conv=fsync
    result.seconds = watch.seconds();
    return result;
  }

  // Untimed: make the read come from the device, and record whether it can.
  const double resident = file_.evict_from_cache();
  Stopwatch watch;
  for (std::int64_t offset = 0; offset < bytes; offset += block) file_.read_request(offset);
  result.seconds = watch.seconds();
  result.detail["cache_resident_fraction"] = resident < 0 ? nlohmann::json() : nlohmann::json(resident);
  const std::int64_t last = bytes - block;
  if (!file_.buffer_matches(last)) {
    throw ValidationError(fmt::format("io-seq read: the block at offset {} of the scratch file in {} ({}) is not "
                                      "what was written there",
                                      last, path_, file_.file_system().type));
  }
  return result;
}

std::unique_ptr<MicroBenchmark> make_io_seq(const MicroParams& params) {
  return std::make_unique<IoSeqBenchmark>(params);
}

}  // namespace dlcbench
