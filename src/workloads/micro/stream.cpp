#include "workloads/micro/stream.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/timer.h"

namespace dlcbench {

namespace {

constexpr double kScalar = 3.0;       // STREAM's q
constexpr double kEpsilon = 1.e-13;   // STREAM's epsilon for 8-byte doubles
constexpr std::size_t kAlignment = 64;

// "32768K", "32M", "1G" or plain bytes, as sysfs writes cache sizes; -1 if not a size.
std::int64_t parse_cache_size(const std::string& text) {
  if (text.empty()) return -1;
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return -1;
  }
  if (value < 0) return -1;
  std::string suffix = text.substr(used);
  std::int64_t scale = 1;
  if (suffix.empty()) scale = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "KiB") scale = 1LL << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MiB") scale = 1LL << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GiB") scale = 1LL << 30;
  else return -1;
  return value * scale;
}

bool is_cpu_dir_name(const std::string& name) {
  if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) return false;
  return std::all_of(name.begin() + 3, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

void free_array(double*& p) {
  std::free(p);
  p = nullptr;
}

}  // namespace

StreamKernel parse_stream_kernel(const std::string& variant) {
  if (variant == "copy") return StreamKernel::copy;
  if (variant == "scale") return StreamKernel::scale;
  if (variant == "add") return StreamKernel::add;
  if (variant == "triad") return StreamKernel::triad;
  throw UsageError(fmt::format("stream has no kernel '{}': choose one of copy, scale, add, triad", variant));
}

const char* stream_kernel_name(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::copy: return "copy";
    case StreamKernel::scale: return "scale";
    case StreamKernel::add: return "add";
    case StreamKernel::triad: return "triad";
  }
  return "?";
}

std::int64_t stream_counted_bytes(StreamKernel kernel, std::int64_t elements) {
  const std::int64_t arrays = (kernel == StreamKernel::copy || kernel == StreamKernel::scale) ? 2 : 3;
  return arrays * static_cast<std::int64_t>(sizeof(double)) * elements;
}

StreamValues stream_expected_values(StreamKernel kernel) {
  // After initialisation: a = 2 (STREAM's a = 2.0E0 * a), b = 2, c = 1.
  // STREAM starts c at 0 because its copy runs first; here each kernel
  // repeats alone, and c = 1 keeps scale (b = q*c) from writing zeros.
  StreamValues v{2.0, 2.0, 1.0};
  switch (kernel) {
    case StreamKernel::copy: v.c = v.a; break;                 // c = a
    case StreamKernel::scale: v.b = kScalar * v.c; break;      // b = q*c
    case StreamKernel::add: v.c = v.a + v.b; break;            // c = a + b
    case StreamKernel::triad: v.a = v.b + kScalar * v.c; break;  // a = b + q*c
  }
  return v;
}

std::int64_t stream_first_mismatch(const double* x, std::int64_t n, double expected, int threads) {
  const double tolerance = kEpsilon * (expected == 0.0 ? 1.0 : std::abs(expected));
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : first)
  for (std::int64_t j = 0; j < n; ++j) {
    // Written so that a NaN fails too.
    if (!(std::abs(x[j] - expected) <= tolerance)) first = std::min(first, j);
  }
  return first == std::numeric_limits<std::int64_t>::max() ? -1 : first;
}

CacheInfo read_cache_info(const std::filesystem::path& cpu_root) {
  // level -> (instance key -> size)
  std::map<int, std::map<std::string, std::int64_t>> caches;
  std::error_code ec;
  for (std::filesystem::directory_iterator cpu(cpu_root, ec), end; !ec && cpu != end; cpu.increment(ec)) {
    const std::string cpu_name = cpu->path().filename().string();
    if (!is_cpu_dir_name(cpu_name)) continue;
    std::error_code ec2;
    for (std::filesystem::directory_iterator index(cpu->path() / "cache", ec2), end2; !ec2 && index != end2;
         index.increment(ec2)) {
      const std::string index_name = index->path().filename().string();
      if (index_name.compare(0, 5, "index") != 0) continue;
      const std::filesystem::path dir = index->path();
      if (read_first_line(dir / "type") == "Instruction") continue;
      int level = 0;
      try {
        level = std::stoi(read_first_line(dir / "level"));
      } catch (const std::exception&) {
        continue;
      }
      const std::int64_t size = parse_cache_size(read_first_line(dir / "size"));
      if (level <= 0 || size <= 0) continue;
      // One instance per distinct set of CPUs sharing it; without the list,
      // the cache's id, or else this CPU's own copy.
      std::string key = read_first_line(dir / "shared_cpu_list");
      if (key.empty()) {
        const std::string id = read_first_line(dir / "id");
        key = id.empty() ? cpu_name : "id" + id;
      }
      auto& slot = caches[level][key];
      slot = std::max(slot, size);
    }
  }
  CacheInfo info;
  if (caches.empty()) return info;
  const auto& [level, instances] = *caches.rbegin();
  info.level = level;
  info.instances = static_cast<int>(instances.size());
  for (const auto& [key, size] : instances) {
    info.total_bytes += size;
    info.instance_bytes = std::max(info.instance_bytes, size);
  }
  return info;
}

std::int64_t stream_elements_for_cache(const CacheInfo& cache) {
  const std::int64_t needed = (4 * cache.total_bytes + std::int64_t(sizeof(double)) - 1) / std::int64_t(sizeof(double));
  return std::max(kStreamMinElements, needed);
}

std::int64_t stream_default_elements(const std::filesystem::path& cpu_root) {
  return stream_elements_for_cache(read_cache_info(cpu_root));
}

StreamBenchmark::StreamBenchmark(const MicroParams& params)
    : kernel_(parse_stream_kernel(params.variant)), n_(params.size), threads_(params.threads) {
  if (n_ <= 0) {
    throw UsageError(fmt::format("stream needs a positive number of elements per array, not {}: give n= (e.g. n={})",
                                 n_, kStreamMinElements));
  }
  if (threads_ <= 0) {
    throw UsageError(fmt::format("stream needs at least one thread, not {}: give threads=1 or more", threads_));
  }
  // Three arrays must fit in what the process may still use.
  constexpr std::int64_t kMaxArrayElements = std::numeric_limits<std::int64_t>::max() / (3 * std::int64_t(sizeof(double)));
  const std::int64_t usable = usable_memory_bytes();
  const std::int64_t budget = usable < 0 ? -1 : static_cast<std::int64_t>(kBenchmarkMemoryShare * static_cast<double>(usable));
  if (n_ > kMaxArrayElements || (budget >= 0 && 3 * n_ * std::int64_t(sizeof(double)) > budget)) {
    const std::int64_t available = std::max<std::int64_t>(usable, 0);
    const std::string needed = n_ > kMaxArrayElements
                                   ? fmt::format("more than {} bytes", std::numeric_limits<std::int64_t>::max())
                                   : fmt::format("{} bytes ({})", 3 * n_ * std::int64_t(sizeof(double)),
                                                 format_memory_bytes(3.0 * static_cast<double>(n_) * sizeof(double)));
    const std::int64_t fit = budget < 0 ? 0 : budget / (3 * std::int64_t(sizeof(double)));
    throw UsageError(fmt::format(
        "stream with n={} needs {} for its three arrays of doubles, but only {} bytes ({}) are available "
        "(MemAvailable and the cgroup memory limit; {:.0f}% of it may be used): give a smaller n= option, "
        "at most n={}",
        n_, needed, available, format_memory_bytes(static_cast<double>(available)),
        kBenchmarkMemoryShare * 100, fit));
  }
  cache_ = read_cache_info();
  omp_set_num_threads(threads_);

  const std::size_t bytes = static_cast<std::size_t>(n_) * sizeof(double);
  for (double** p : {&a_, &b_, &c_}) {
    void* mem = nullptr;
    if (posix_memalign(&mem, kAlignment, bytes) != 0) {
      free_array(a_);
      free_array(b_);
      free_array(c_);
      throw UsageError(fmt::format("stream could not allocate three arrays of {} bytes: give a smaller n= option",
                                   bytes));
    }
    *p = static_cast<double*>(mem);
  }

  // First touch with the kernels' schedule, so each thread's pages sit on
  // its own NUMA node; STREAM's values, then its a = 2a.
  double* const a = a_;
  double* const b = b_;
  double* const c = c_;
  const std::int64_t n = n_;
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (std::int64_t j = 0; j < n; ++j) {
    a[j] = 1.0;
    b[j] = 2.0;
    c[j] = 1.0;  // see stream_expected_values
  }
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (std::int64_t j = 0; j < n; ++j) a[j] = 2.0E0 * a[j];
}

StreamBenchmark::~StreamBenchmark() {
  free_array(a_);
  free_array(b_);
  free_array(c_);
}

double* StreamBenchmark::array_for_test(char name) {
  switch (name) {
    case 'a': return a_;
    case 'b': return b_;
    case 'c': return c_;
    default: return nullptr;
  }
}

nlohmann::json StreamBenchmark::describe() const {
  return {{"benchmark", "stream"},
          {"kernel", stream_kernel_name(kernel_)},
          {"elements", n_},
          {"array_bytes", n_ * std::int64_t(sizeof(double))},
          {"llc_bytes", cache_.total_bytes},
          {"threads", threads_},
          {"counted_bytes_per_pass", stream_counted_bytes(kernel_, n_)}};
}

MicroResult StreamBenchmark::run() {
  double* __restrict const a = a_;
  double* __restrict const b = b_;
  double* __restrict const c = c_;
  const std::int64_t n = n_;
  const double q = kScalar;

  Stopwatch watch;
  switch (kernel_) {
    case StreamKernel::copy:
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t j = 0; j < n; ++j) c[j] = a[j];
      break;
    case StreamKernel::scale:
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t j = 0; j < n; ++j) b[j] = q * c[j];
      break;
    case StreamKernel::add:
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t j = 0; j < n; ++j) c[j] = a[j] + b[j];
      break;
    case StreamKernel::triad:
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t j = 0; j < n; ++j) a[j] = b[j] + q * c[j];
      break;
  }
  const double seconds = watch.seconds();

  check();
  MicroResult result;
  result.seconds = seconds;
  result.work = static_cast<double>(stream_counted_bytes(kernel_, n_));
  return result;
}

void StreamBenchmark::check() const {
  const StreamValues expected = stream_expected_values(kernel_);
  const std::pair<char, std::pair<const double*, double>> arrays[] = {
      {'a', {a_, expected.a}}, {'b', {b_, expected.b}}, {'c', {c_, expected.c}}};
  for (const auto& [name, array] : arrays) {
    const auto& [data, value] = array;
    const std::int64_t bad = stream_first_mismatch(data, n_, value, threads_);
    if (bad >= 0) {
      throw ValidationError(fmt::format(
          "stream {}: array {}[{}] = {:.17g} after the pass, expected {:.17g} (relative error above {:g}); "
          "the memory or the kernel produced a wrong result",
          stream_kernel_name(kernel_), name, bad, data[bad], value, kEpsilon));
    }
  }
}

std::unique_ptr<MicroBenchmark> make_stream(const MicroParams& params) {
  return std::make_unique<StreamBenchmark>(params);
}

}  // namespace dlcbench
