// SGEMM or DGEMM (params.variant) of square matrices of order params.size through the BLAS.
//
// One timed iteration is one call C = A * B (column-major, alpha 1, beta 0).
// After it, outside the timing, a fixed sample of entries of C is compared
// with dot products computed in higher precision, so that a broken BLAS
// kernel fails the run instead of producing a fast, wrong figure.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/memory.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

// Floating-point operations of one n x n by n x n product: 2 n^3 (n
// multiplies and n adds per entry of C, as GEMM rates are always counted).
double gemm_flops(std::int64_t n);

// Entries of C checked after every multiply: the four corners (where kernel
// edge cases live) and the rest drawn from the run's seed.
inline constexpr int kGemmCheckEntries = 32;

struct GemmCheck {
  int entries = 0;
  // Largest |c_ij - reference| / bound over the sample; at most 1 when it passes.
  double max_error_ratio = 0;
};

// Compares kGemmCheckEntries entries of c against a, b (column-major n x n,
// c = a * b) with a reference dot product in double (float data) or long
// double (double data). The bound per entry is
//     |c_ij - ref_ij| <= n * eps * sum_k |a_ik| |b_kj|
// with eps = FLT_EPSILON or DBL_EPSILON: twice the classical worst-case
// rounding bound of a length-n dot product (gamma_n ~ n * eps / 2), so no
// summation order a correct kernel may use can trip it, while a wrong,
// missing or stale term shows. Throws ValidationError naming the first entry
// out of bound (a NaN fails too).
GemmCheck check_gemm_sample(std::span<const float> a, std::span<const float> b, std::span<const float> c,
                            std::int64_t n, std::uint64_t seed);
GemmCheck check_gemm_sample(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                            std::int64_t n, std::uint64_t seed);

// The multiply run() times, c = a * b for column-major n x n matrices. The
// defaults call cblas_sgemm / cblas_dgemm; tests pass broken ones to prove
// that run() checks its result.
template <class T>
using GemmKernel = std::function<void(const T* a, const T* b, T* c, std::int64_t n)>;
struct GemmKernels {
  GemmKernel<float> sgemm;   // empty: cblas_sgemm
  GemmKernel<double> dgemm;  // empty: cblas_dgemm
};

// Throws UsageError for an unknown variant, n < 1 or beyond the BLAS's int,
// threads < 1, or matrices that do not fit in memory (checked before
// anything is allocated).
std::unique_ptr<MicroBenchmark> make_gemm(const MicroParams& params);
std::unique_ptr<MicroBenchmark> make_gemm(const MicroParams& params, GemmKernels kernels);

// Shared by the dense benchmarks (gemm, hpl).
namespace dense {

// Throws UsageError when bytes_for(n) exceeds kBenchmarkMemoryShare of the
// available memory, naming `what` (e.g. "gemm/sgemm"), n, the bytes needed and what
// they are (`arrays`, e.g. "3 n^2 floats"), the memory available, and the
// largest n that fits. Does nothing when the memory available is unknown.
void require_memory(const std::string& what, std::int64_t n, const std::string& arrays,
                    const std::function<double(std::int64_t)>& bytes_for);

// Throws UsageError unless 1 <= n <= INT_MAX (the BLAS's and LAPACK's int).
void require_order(const std::string& what, std::int64_t n);

// The BLAS threads and core (OpenBLAS's kernel choice) as the library reports them.
int blas_threads();
std::string blas_core();

}  // namespace dense

}  // namespace dlcbench
