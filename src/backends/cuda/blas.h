// cuBLAS on row-major matrices, as the reference engine's gemm() takes them
// (the mapping to column-major cuBLAS is blas_layout.h's).
#pragma once

#include <cstdint>

#include "backends/cuda/gpu_context.h"

namespace dlcbench::cuda {

// C [M, N] = alpha op(A) op(B) + beta C, op(A) [M, K], op(B) [K, N]; A is
// stored [M, K] (or [K, M] when trans_a), B [K, N] (or [N, K] when trans_b).
void gemm(const GpuContext& gpu, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c);

// sums [columns] = the sums of the columns of x [rows, columns], as x^T
// times a vector of ones [rows] (the caller's, ones on the device).
void column_sums(const GpuContext& gpu, const float* x, std::int64_t rows, std::int64_t columns, const float* ones,
                 float* sums);

}  // namespace dlcbench::cuda
