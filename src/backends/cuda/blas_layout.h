// How a row-major product becomes a call of column-major cuBLAS, as plain
// arithmetic without CUDA headers, so the unit tests check it on the CPU
// against a column-major GEMM written from the BLAS definition.
//
// cuBLAS is column-major: a row-major [M, N] matrix is, to it, the
// column-major [N, M] transpose. So C = op(A) op(B) (row-major) is computed
// as C^T = op(B)^T op(A)^T (column-major): the operands swap places and keep
// their transposes, and each leading dimension is its matrix's row length.
#pragma once

#include <cstdint>

namespace dlcbench::cuda {

// The arguments of cublasSgemm(handle, transa, transb, m, n, k, alpha, A,
// lda, B, ldb, beta, C, ldc) for the row-major product; its A is the
// row-major B and its B the row-major A.
struct ColumnMajorGemm {
  bool transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

// Row-major C [M, N] = op(A) [M, K] op(B) [K, N], A stored [M, K] (or
// [K, M] when trans_a), B stored [K, N] (or [N, K] when trans_b).
inline ColumnMajorGemm row_major_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  return {.transa = trans_b,
          .transb = trans_a,
          .m = n,
          .n = m,
          .k = k,
          .lda = trans_b ? k : n,  // the row length of B as stored
          .ldb = trans_a ? m : k,  // the row length of A as stored
          .ldc = n};
}

// The arguments of cublasSgemv(handle, CUBLAS_OP_N, m, n, alpha, A, lda, x,
// 1, beta, y, 1) that sum the columns of a row-major x [rows, columns]: to
// cuBLAS it is the column-major [columns, rows] matrix, times ones [rows].
struct ColumnMajorGemv {
  std::int64_t m, n, lda;
};

inline ColumnMajorGemv row_major_column_sums(std::int64_t rows, std::int64_t columns) {
  return {.m = columns, .n = rows, .lda = columns};
}

}  // namespace dlcbench::cuda
