// STREAM kernel params.variant (copy, scale, add, triad) over arrays of params.size doubles.
//
// McCalpin's STREAM as a dlcbench workload: three 64-byte-aligned arrays of
// n doubles, first touched in parallel with the kernels' static schedule and
// set to STREAM's values (a = 1, b = 2, then a = 2a), but c = 1, not 0 (see
// stream_expected_values). One run() is one
// timed pass of one kernel; bytes are counted as STREAM counts them, and the
// arrays are checked after every pass (outside the timing) against the
// values the repeated kernel leaves, within STREAM's epsilon (1e-13).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

std::unique_ptr<MicroBenchmark> make_stream(const MicroParams& params);

enum class StreamKernel { copy, scale, add, triad };

// "copy" -> StreamKernel::copy, ...; anything else is a UsageError listing the four.
StreamKernel parse_stream_kernel(const std::string& variant);
const char* stream_kernel_name(StreamKernel kernel);

// Bytes one pass moves as STREAM counts them: 2 x 8 x n for copy and scale,
// 3 x 8 x n for add and triad.
std::int64_t stream_counted_bytes(StreamKernel kernel, std::int64_t elements);

// The values every element of a, b and c holds after one or more passes of
// `kernel` (a = 2, b = 2, c = 1 before the first; q = 3).
struct StreamValues {
  double a = 0, b = 0, c = 0;
};
StreamValues stream_expected_values(StreamKernel kernel);

// STREAM's check: the index of the first element of x[0, n) whose relative
// error against `expected` exceeds 1e-13 (absolute when expected is 0), or -1
// when all agree. Scans in parallel with `threads` OpenMP threads.
std::int64_t stream_first_mismatch(const double* x, std::int64_t n, double expected, int threads);

// The last-level cache as the kernel sees it: the highest cache level listed
// under <cpu_root>/cpu*/cache/index*/ (instruction caches skipped), each
// distinct instance (by shared_cpu_list) counted once.
struct CacheInfo {
  int level = 0;                   // 0 when nothing could be read
  int instances = 0;               // distinct LLC instances
  std::int64_t instance_bytes = 0;  // size of the largest instance
  std::int64_t total_bytes = 0;    // sum over the distinct instances
};
inline constexpr const char* kSysCpuRoot = "/sys/devices/system/cpu";
CacheInfo read_cache_info(const std::filesystem::path& cpu_root = kSysCpuRoot);

// STREAM's sizing rule: each array at least 4 times the total last-level
// cache, never below 10,000,000 elements (STREAM's default).
inline constexpr std::int64_t kStreamMinElements = 10'000'000;
std::int64_t stream_default_elements(const std::filesystem::path& cpu_root = kSysCpuRoot);
std::int64_t stream_elements_for_cache(const CacheInfo& cache);


// The benchmark object behind make_stream, exposed for tests.
class StreamBenchmark final : public MicroBenchmark {
 public:
  explicit StreamBenchmark(const MicroParams& params);
  ~StreamBenchmark() override;
  StreamBenchmark(const StreamBenchmark&) = delete;
  StreamBenchmark& operator=(const StreamBenchmark&) = delete;

  nlohmann::json describe() const override;
  MicroResult run() override;

  std::int64_t elements() const { return n_; }
  StreamKernel kernel() const { return kernel_; }
  // Test hook: array 'a', 'b' or 'c', so a test can corrupt an element
  // between passes.
  double* array_for_test(char name);

 private:
  void check() const;

  StreamKernel kernel_;
  std::int64_t n_;
  int threads_;
  CacheInfo cache_;
  double* a_ = nullptr;
  double* b_ = nullptr;
  double* c_ = nullptr;
};

}  // namespace dlcbench
