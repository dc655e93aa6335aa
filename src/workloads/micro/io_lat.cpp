#include "workloads/micro/io_lat.h"

#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/timer.h"

namespace dlcbench {

namespace {

ScratchFileSpec io_lat_spec(const MicroParams& params) {
  ScratchFileSpec spec;
  spec.benchmark = "io-lat";
  spec.dir = params.path;
  spec.file_bytes = params.size;
  spec.block_bytes = params.block;
  spec.direct = true;  // ioping -D: always
  spec.buffered_allowed = false;
  spec.seed = params.seed;
  return spec;
}

}  // namespace

IoLatBenchmark::IoLatBenchmark(const MicroParams& params)
    : path_(canonical_folder(params.path)), file_(io_lat_spec(params)), generator_(params.seed) {
  // Written with O_DIRECT (set by the scratch file), fsynced, and dropped
  // from the page cache in case the file system kept a copy.
  file_.fill();
  file_.evict_from_cache();
}

nlohmann::json IoLatBenchmark::describe() const {
  return {{"benchmark", "io-lat"},
          {"mode", "read"},
          {"direct", true},
          {"file_bytes", file_.file_bytes()},
          {"block_bytes", file_.block_bytes()},
          {"request_bytes", file_.block_bytes()},
          {"path", path_},
          {"fs_type", file_.file_system().type},
          {"mount_source", file_.file_system().mount_source}};
}

MicroResult IoLatBenchmark::run() {
  std::uniform_int_distribution<std::int64_t> pick(0, file_.requests() - 1);
  const std::int64_t offset = pick(generator_) * file_.block_bytes();

  Stopwatch watch;
  file_.read_request(offset);
  const double seconds = watch.seconds();

  if (!file_.buffer_matches(offset)) {
    throw ValidationError(fmt::format("io-lat: the block at offset {} of the scratch file in {} ({}) is not what "
                                      "was written there",
                                      offset, path_, file_.file_system().type));
  }
  MicroResult result;
  result.seconds = seconds;
  result.work = static_cast<double>(file_.block_bytes());
  result.detail = {{"offset", offset}};
  return result;
}

std::unique_ptr<MicroBenchmark> make_io_lat(const MicroParams& params) {
  return std::make_unique<IoLatBenchmark>(params);
}

}  // namespace dlcbench
