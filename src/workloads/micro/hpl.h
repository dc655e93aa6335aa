// HPL: dense LU solve (getrf + getrs) of order params.size with HPL's flop count and scaled-residual check.
//
// What HPL does, in one process through LAPACK: A (n x n) and b drawn
// uniformly from [-0.5, 0.5], A x = b solved by LU factorisation with
// partial pivoting, rated with HPL's operation count, and the solution
// accepted only when HPL's scaled residual is below HPL's threshold.
#pragma once

#include <cfloat>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

// HPL's operation count for a solve of order n: 2/3 n^3 + 3/2 n^2.
double hpl_flops(std::int64_t n);

// HPL's machine epsilon, HPL_dlamch(HPL_MACH_EPS): the unit roundoff
// 2^-53 (HPL prints it as 1.110223e-16), half of DBL_EPSILON.
inline constexpr double kHplEps = DBL_EPSILON / 2;
// HPL.dat's customary threshold: a run passes when the scaled residual is below it.
inline constexpr double kHplResidualThreshold = 16.0;

// A system A x = b; a is column-major n x n.
struct HplProblem {
  std::int64_t n = 0;
  std::vector<double> a, b;
};

// A and b with entries uniform in [-0.5, 0.5] from `seed` (A column by column, then b).
HplProblem hpl_generate(std::int64_t n, std::uint64_t seed);

// The timed operation: dgetrf (LU with partial pivoting) then dgetrs. On
// return a holds the LU factors, b the solution x, pivots the row swaps.
// Throws ValidationError when U has an exactly zero pivot (a singular
// matrix) and std::invalid_argument when the sizes do not match n.
void hpl_lu_solve(std::span<double> a, std::span<double> b, std::span<int> pivots, std::int64_t n);

// Solves a copy of the problem; returns x.
std::vector<double> hpl_solve(const HplProblem& problem);

// HPL's scaled residual
//     ||A x - b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * n),  eps = kHplEps,
// with A x - b computed here in plain loops rather than by the BLAS under
// test. 0 when n is 0; NaN when x holds a NaN. std::invalid_argument when
// the sizes do not match n.
double hpl_scaled_residual(std::span<const double> a, std::span<const double> x, std::span<const double> b,
                           std::int64_t n);

// The solve run() times, with hpl_lu_solve's contract; tests pass faulty
// ones to prove that run() checks the solution.
using HplSolver = std::function<void(std::span<double> a, std::span<double> b, std::span<int> pivots, std::int64_t n)>;

// Throws UsageError for n < 1 or beyond LAPACK's int, threads < 1, or
// arrays that do not fit in memory (checked before anything is allocated).
// run() throws ValidationError when the scaled residual is not below
// kHplResidualThreshold.
std::unique_ptr<MicroBenchmark> make_hpl(const MicroParams& params);
std::unique_ptr<MicroBenchmark> make_hpl(const MicroParams& params, HplSolver solver);

}  // namespace dlcbench
