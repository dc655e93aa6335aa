#include "backends/reference/gemm.h"

#include <algorithm>

#include <cblas.h>
#include <omp.h>

namespace dlcbench::reference {
namespace {

// Products smaller than this (in multiply-adds) run on the calling thread.
constexpr std::int64_t kParallelProduct = 1 << 18;
// Bands are whole multiples of this, so OpenBLAS's kernels see full tiles.
constexpr std::int64_t kBandAlignment = 16;
// Bands per thread, handed out as threads come free: a thread the system
// deschedules for a while (other work on the machine) then holds up only a
// band, not half of the product.
constexpr std::int64_t kBandsPerThread = 4;

blasint blas(std::int64_t v) { return static_cast<blasint>(v); }

// Band `i` of `bands` over `count` rows or columns: [begin, end).
std::pair<std::int64_t, std::int64_t> band(std::int64_t count, std::int64_t i, std::int64_t bands) {
  const std::int64_t blocks = (count + kBandAlignment - 1) / kBandAlignment;
  const std::int64_t first = blocks * i / bands, last = blocks * (i + 1) / bands;
  return {std::min(count, first * kBandAlignment), std::min(count, last * kBandAlignment)};
}

}  // namespace

void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, const float* b, float beta, float* c) {
  const auto ta = transpose_a ? CblasTrans : CblasNoTrans, tb = transpose_b ? CblasTrans : CblasNoTrans;
  const std::int64_t lda = transpose_a ? m : k, ldb = transpose_b ? k : n;
  const int threads = omp_get_max_threads();
  if (threads == 1 || m * n * k < kParallelProduct) {
    cblas_sgemm(CblasRowMajor, ta, tb, blas(m), blas(n), blas(k), alpha, a, blas(lda), b, blas(ldb), beta, c,
                blas(n));
    return;
  }
  // Cut the longer side of C: rows of C are rows of op(A), columns of C
  // columns of op(B).
  const bool by_rows = m >= n;
  const std::int64_t bands = threads * kBandsPerThread;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < bands; ++i) {
    const auto [begin, end] = band(by_rows ? m : n, i, bands);
    if (begin >= end) continue;
    if (by_rows) {
      const float* a_band = transpose_a ? a + begin : a + begin * lda;
      cblas_sgemm(CblasRowMajor, ta, tb, blas(end - begin), blas(n), blas(k), alpha, a_band, blas(lda), b, blas(ldb),
                  beta, c + begin * n, blas(n));
    } else {
      const float* b_band = transpose_b ? b + begin * ldb : b + begin;
      cblas_sgemm(CblasRowMajor, ta, tb, blas(m), blas(end - begin), blas(k), alpha, a, blas(lda), b_band, blas(ldb),
                  beta, c + begin, blas(n));
    }
  }
}

void gemm_on_this_thread(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
                         float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                         float* c, std::int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              blas(m), blas(n), blas(k), alpha, a, blas(lda), b, blas(ldb), beta, c, blas(ldc));
}

void column_sums(const float* x, std::int64_t rows, std::int64_t cols, float* out) {
#pragma omp parallel if (rows * cols > (1 << 16))
  {
    // One band per thread. Plain variables, not a structured binding: an
    // OpenMP construct inside may not refer to a binding (Clang refuses it).
    const std::pair<std::int64_t, std::int64_t> columns = band(cols, omp_get_thread_num(), omp_get_num_threads());
    const std::int64_t begin = columns.first, end = columns.second;
    std::fill(out + begin, out + end, 0.0f);
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* row = x + r * cols;
#pragma omp simd
      for (std::int64_t j = begin; j < end; ++j) out[j] += row[j];
    }
  }
}

}  // namespace dlcbench::reference
