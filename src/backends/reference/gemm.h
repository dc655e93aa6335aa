// Matrix products through OpenBLAS, spelled the way the layers think of
// them: contiguous row-major matrices, optionally transposed.
//
// The engine keeps one pool of threads, OpenMP's. A product is cut into
// bands of rows or columns of C, one per OpenMP thread, and OpenBLAS runs
// single-threaded inside each thread on its band. With OpenBLAS's own
// threads as well, two pools would take turns on the same cores, each
// spinning while the other works; on a 2-core machine that costs more than
// it gains.
#pragma once

#include <cstdint>

namespace dlcbench::reference {

// C[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C, where op transposes
// when asked: A is stored [m, k] (or [k, m] when transposed), B [k, n] (or
// [n, k]).
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, const float* b, float beta, float* c);

// The same on the calling thread alone, with explicit leading dimensions:
// for products on bands of larger matrices inside a parallel loop.
void gemm_on_this_thread(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
                         float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                         float* c, std::int64_t ldc);

// out[j] = sum over rows of x[r, j], for x [rows, cols]: the bias gradient
// of a layer applied to every row.
void column_sums(const float* x, std::int64_t rows, std::int64_t cols, float* out);

}  // namespace dlcbench::reference
