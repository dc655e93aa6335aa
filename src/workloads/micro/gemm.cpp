#include "workloads/micro/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/fingerprint.h"
#include "core/timer.h"

namespace dlcbench {

double gemm_flops(std::int64_t n) {
  const auto d = static_cast<double>(n);
  return 2.0 * d * d * d;
}

namespace dense {

void require_memory(const std::string& what, std::int64_t n, const std::string& arrays,
                    const std::function<double(std::int64_t)>& bytes_for) {
  const std::int64_t usable_bytes = usable_memory_bytes();
  if (usable_bytes < 0) return;
  const std::optional<std::uint64_t> available = static_cast<std::uint64_t>(usable_bytes);
  const std::string source = "MemAvailable and the cgroup memory limit";
  const double usable = kBenchmarkMemoryShare * static_cast<double>(*available);
  const double needed = bytes_for(n);
  if (needed <= usable) return;
  // The largest order that fits (bytes_for grows with n): lo fits, hi does not.
  std::int64_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (bytes_for(mid) <= usable ? lo : hi) = mid;
  }
  throw UsageError(fmt::format(
      "{} with n={} needs {} for its arrays ({}), but only {} of memory is available ({}) and a run may "
      "use {:.0f}% of it: choose a smaller n{}",
      what, n, format_memory_bytes(needed), arrays, format_memory_bytes(static_cast<double>(*available)), source,
      kBenchmarkMemoryShare * 100, lo >= 1 ? fmt::format(" (at most n={} fits here)", lo) : std::string()));
}

void require_order(const std::string& what, std::int64_t n) {
  if (n < 1 || n > INT_MAX)
    throw UsageError(fmt::format("{}: n={} is not a usable matrix order: give n between 1 and {}", what, n, INT_MAX));
}

int blas_threads() { return openblas_get_num_threads(); }

std::string blas_core() {
  const char* core = openblas_get_corename();
  return core ? core : "unknown";
}

}  // namespace dense

namespace {

template <class T>
struct Precision;
template <>
struct Precision<float> {
  using Reference = double;
  static constexpr double eps = FLT_EPSILON;
  static constexpr const char* eps_name = "FLT_EPSILON";
  static constexpr const char* reference_name = "double";
  static constexpr const char* type_name = "float";
  static constexpr const char* routine = "cblas_sgemm";
};
template <>
struct Precision<double> {
  // x86-64's 80-bit long double; where long double is double the bound
  // still holds (it allows for the reference's own rounding).
  using Reference = long double;
  static constexpr double eps = DBL_EPSILON;
  static constexpr const char* eps_name = "DBL_EPSILON";
  static constexpr const char* reference_name = "long double";
  static constexpr const char* type_name = "double";
  static constexpr const char* routine = "cblas_dgemm";
};

// The sampled (row, column) positions: the four corners, then drawn from the seed.
std::vector<std::pair<std::int64_t, std::int64_t>> sample_positions(std::int64_t n, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> at = {{0, 0}, {n - 1, n - 1}, {0, n - 1}, {n - 1, 0}};
  std::mt19937_64 gen(seed ^ 0x9e3779b97f4a7c15ULL);  // not the inputs' stream
  std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
  while (at.size() < static_cast<std::size_t>(kGemmCheckEntries)) {
    const std::int64_t i = pick(gen);
    const std::int64_t j = pick(gen);
    at.emplace_back(i, j);
  }
  return at;
}

template <class T>
GemmCheck check_sample(std::span<const T> a, std::span<const T> b, std::span<const T> c, std::int64_t n,
                       std::uint64_t seed) {
  const std::size_t entries = n > 0 ? static_cast<std::size_t>(n) * static_cast<std::size_t>(n) : 0;
  if (n < 1 || a.size() != entries || b.size() != entries || c.size() != entries)
    throw std::invalid_argument(fmt::format("check_gemm_sample: n={} but matrices of {}, {} and {} entries", n,
                                            a.size(), b.size(), c.size()));
  using R = typename Precision<T>::Reference;
  GemmCheck result;
  for (const auto& [i, j] : sample_positions(n, seed)) {
    R reference = 0, scale = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const R term = static_cast<R>(a[i + k * n]) * static_cast<R>(b[k + j * n]);
      reference += term;
      scale += std::abs(term);
    }
    const T got = c[i + j * n];
    const double error = static_cast<double>(std::abs(static_cast<R>(got) - reference));
    const double bound = static_cast<double>(n) * Precision<T>::eps * static_cast<double>(scale);
    if (!(error <= bound))  // a NaN fails too
      throw ValidationError(fmt::format(
          "result check failed at C({}, {}): {:.9g} from the multiply, {:.9g} from a {} dot product; error "
          "{:.3g} exceeds the bound {:.3g} (n * {} * sum_k |a_ik b_kj|)",
          i, j, static_cast<double>(got), static_cast<double>(reference), Precision<T>::reference_name, error,
          bound, Precision<T>::eps_name));
    ++result.entries;
    if (error > 0) result.max_error_ratio = std::max(result.max_error_ratio, error / bound);
  }
  return result;
}

void blas_sgemm(const float* a, const float* b, float* c, std::int64_t n) {
  const int m = static_cast<int>(n);
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a, m, b, m, 0.0f, c, m);
}

void blas_dgemm(const double* a, const double* b, double* c, std::int64_t n) {
  const int m = static_cast<int>(n);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, a, m, b, m, 0.0, c, m);
}

template <class T>
class Gemm final : public MicroBenchmark {
 public:
  Gemm(const MicroParams& params, GemmKernel<T> kernel)
      : label_("gemm/" + params.variant), n_(params.size), seed_(params.seed), kernel_(std::move(kernel)) {
    const auto entries = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
    a_.resize(entries);
    b_.resize(entries);
    c_.resize(entries);  // zero-filled: its pages are resident before the first timed call
    std::mt19937_64 gen(seed_);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (auto& v : a_) v = static_cast<T>(value(gen));
    for (auto& v : b_) v = static_cast<T>(value(gen));
  }

  nlohmann::json describe() const override {
    return {{"benchmark", "gemm"},
            {"routine", Precision<T>::routine},
            {"n", n_},
            {"bytes", 3 * a_.size() * sizeof(T)},
            {"threads", dense::blas_threads()},
            {"blas_core", dense::blas_core()},
            {"check",
             {{"entries", kGemmCheckEntries},
              {"reference", fmt::format("{} dot product", Precision<T>::reference_name)},
              {"bound", fmt::format("n * {} * sum_k |a_ik b_kj|", Precision<T>::eps_name)}}}};
  }

  MicroResult run() override {
    // Poison C so that entries a kernel leaves unwritten fail the check
    // instead of passing with the previous iteration's values.
    std::fill(c_.begin(), c_.end(), std::numeric_limits<T>::max());
    Stopwatch watch;
    kernel_(a_.data(), b_.data(), c_.data(), n_);
    MicroResult result;
    result.seconds = watch.seconds();
    GemmCheck check;
    try {
      check = check_gemm_sample(std::span<const T>(a_), std::span<const T>(b_), std::span<const T>(c_), n_, seed_);
    } catch (const ValidationError& e) {
      throw ValidationError(fmt::format("{} n={}: {} (BLAS core {}, {} threads)", label_, n_, e.what(),
                                        dense::blas_core(), dense::blas_threads()));
    }
    result.work = gemm_flops(n_);
    // Typed, not `= {...}`: in a template, Clang before 17 never destroys the
    // temporary that a braced list passes to a by-value operator= (LLVM issue
    // 51037), so the default detail object leaked in every Clang build.
    result.detail = nlohmann::json{{"checked_entries", check.entries}, {"max_error_ratio", check.max_error_ratio}};
    return result;
  }

 private:
  std::string label_;
  std::int64_t n_;
  std::uint64_t seed_;
  GemmKernel<T> kernel_;
  std::vector<T> a_, b_, c_;
};

}  // namespace

GemmCheck check_gemm_sample(std::span<const float> a, std::span<const float> b, std::span<const float> c,
                            std::int64_t n, std::uint64_t seed) {
  return check_sample(a, b, c, n, seed);
}

GemmCheck check_gemm_sample(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                            std::int64_t n, std::uint64_t seed) {
  return check_sample(a, b, c, n, seed);
}

std::unique_ptr<MicroBenchmark> make_gemm(const MicroParams& params) { return make_gemm(params, GemmKernels{}); }

std::unique_ptr<MicroBenchmark> make_gemm(const MicroParams& params, GemmKernels kernels) {
  const bool single = params.variant == "sgemm";
  if (!single && params.variant != "dgemm")
    throw UsageError(fmt::format("gemm: unknown variant '{}'; valid variants: sgemm, dgemm", params.variant));
  const std::string label = "gemm/" + params.variant;
  dense::require_order(label, params.size);
  if (params.threads < 1)
    throw UsageError(fmt::format("{}: threads={} is not a thread count: give 1 or more", label, params.threads));
  const double element = single ? sizeof(float) : sizeof(double);
  dense::require_memory(label, params.size, fmt::format("A, B and C, 3 n^2 {}s", single ? "float" : "double"),
                        [element](std::int64_t n) {
                          const auto d = static_cast<double>(n);
                          return 3.0 * d * d * element;
                        });
  openblas_set_num_threads(params.threads);
  if (single)
    return std::make_unique<Gemm<float>>(params, kernels.sgemm ? std::move(kernels.sgemm) : blas_sgemm);
  return std::make_unique<Gemm<double>>(params, kernels.dgemm ? std::move(kernels.dgemm) : blas_dgemm);
}

}  // namespace dlcbench
