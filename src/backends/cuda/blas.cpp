#include "backends/cuda/blas.h"

#include <limits>
#include <stdexcept>

#include "backends/cuda/blas_layout.h"
#include "backends/cuda/cuda_check.h"

namespace dlcbench::cuda {
namespace {

// cuBLAS's classic API counts in int.
int dim(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<int>::max())
    throw std::length_error("a matrix dimension does not fit cuBLAS's int");
  return static_cast<int>(n);
}

cublasOperation_t op(bool transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void gemm(const GpuContext& gpu, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c) {
  const ColumnMajorGemm g = row_major_gemm(trans_a, trans_b, m, n, k);
  // The row-major B is cuBLAS's A, the row-major A its B.
  DLCBENCH_CUBLAS(cublasSgemm(gpu.cublas(), op(g.transa), op(g.transb), dim(g.m), dim(g.n), dim(g.k), &alpha, b,
                              dim(g.lda), a, dim(g.ldb), &beta, c, dim(g.ldc)));
}

void column_sums(const GpuContext& gpu, const float* x, std::int64_t rows, std::int64_t columns, const float* ones,
                 float* sums) {
  const ColumnMajorGemv g = row_major_column_sums(rows, columns);
  const float one = 1.0f, zero = 0.0f;
  DLCBENCH_CUBLAS(
      cublasSgemv(gpu.cublas(), CUBLAS_OP_N, dim(g.m), dim(g.n), &one, x, dim(g.lda), ones, 1, &zero, sums, 1));
}

}  // namespace dlcbench::cuda
