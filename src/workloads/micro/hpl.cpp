#include "workloads/micro/hpl.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/timer.h"
#include "workloads/micro/gemm.h"

// LAPACK's Fortran entry points, as OpenBLAS exports them (there is no
// lapacke.h here). The trailing length is gfortran's hidden CHARACTER length;
// OpenBLAS's own C getrs ignores it.
extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace dlcbench {

// HPL 2.3, testing/ptest/HPL_pdtest.c, rates a solve of order N as
//     Gflops = ((N / 1e9) * (N / wtime)) * ((2/3) N + 3/2),
// i.e. 2/3 N^3 + 3/2 N^2 operations (its comment: 2/3 N^3 - 1/2 N^2 for the
// LU factorisation plus 2 N^2 for the two triangular solves).
double hpl_flops(std::int64_t n) {
  const auto d = static_cast<double>(n);
  return d * d * (2.0 / 3.0 * d + 3.0 / 2.0);
}

namespace {

std::size_t square(std::int64_t n) { return static_cast<std::size_t>(n) * static_cast<std::size_t>(n); }

void require_sizes(const char* function, std::int64_t n, std::size_t a, std::size_t x, std::size_t b) {
  if (n < 0 || a != square(n) || x != static_cast<std::size_t>(n) || b != static_cast<std::size_t>(n))
    throw std::invalid_argument(fmt::format("{}: n={} but arrays of {}, {} and {} entries", function, n, a, x, b));
}

double hpl_bytes(std::int64_t n) {
  const auto d = static_cast<double>(n);
  // A and its working copy, b and x, the pivots.
  return 2.0 * d * d * sizeof(double) + 2.0 * d * sizeof(double) + d * sizeof(int);
}

class Hpl final : public MicroBenchmark {
 public:
  Hpl(const MicroParams& params, HplSolver solver)
      : n_(params.size), problem_(hpl_generate(n_, params.seed)), solver_(std::move(solver)) {
    lu_.resize(problem_.a.size());  // zero-filled: its pages are resident before the first timed call
    x_.resize(problem_.b.size());
    pivots_.resize(problem_.b.size());
  }

  nlohmann::json describe() const override {
    return {{"benchmark", "hpl"},
            {"n", n_},
            {"routine", "dgetrf+dgetrs"},
            {"flop_formula", "2/3 n^3 + 3/2 n^2"},
            {"bytes", static_cast<std::uint64_t>(hpl_bytes(n_))},
            {"threads", dense::blas_threads()},
            {"blas_core", dense::blas_core()},
            {"eps", kHplEps},
            {"residual_threshold", kHplResidualThreshold}};
  }

  MicroResult run() override {
    std::copy(problem_.a.begin(), problem_.a.end(), lu_.begin());
    std::copy(problem_.b.begin(), problem_.b.end(), x_.begin());
    Stopwatch watch;
    solver_(lu_, x_, pivots_, n_);
    MicroResult result;
    result.seconds = watch.seconds();
    const double residual = hpl_scaled_residual(problem_.a, x_, problem_.b, n_);
    if (!(residual < kHplResidualThreshold))  // a NaN fails too
      throw ValidationError(fmt::format(
          "hpl n={}: scaled residual ||Ax-b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * n) = {:.6g} is not "
          "below HPL's threshold {}: the solution is wrong (BLAS core {}, {} threads)",
          n_, residual, kHplResidualThreshold, dense::blas_core(), dense::blas_threads()));
    result.work = hpl_flops(n_);
    result.detail = {{"scaled_residual", residual}, {"passed", true}};
    return result;
  }

 private:
  std::int64_t n_;
  HplProblem problem_;  // kept unchanged for the residual
  HplSolver solver_;
  std::vector<double> lu_, x_;
  std::vector<int> pivots_;
};

}  // namespace

HplProblem hpl_generate(std::int64_t n, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument(fmt::format("hpl_generate: n={}", n));
  HplProblem p;
  p.n = n;
  p.a.resize(square(n));
  p.b.resize(static_cast<std::size_t>(n));
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-0.5, 0.5);
  for (auto& v : p.a) v = value(gen);
  for (auto& v : p.b) v = value(gen);
  return p;
}

void hpl_lu_solve(std::span<double> a, std::span<double> b, std::span<int> pivots, std::int64_t n) {
  require_sizes("hpl_lu_solve", n, a.size(), pivots.size(), b.size());
  if (n == 0) return;
  const int m = static_cast<int>(n), one = 1;
  int info = 0;
  dgetrf_(&m, &m, a.data(), &m, pivots.data(), &info);
  if (info < 0) throw std::logic_error(fmt::format("dgetrf: argument {} is invalid", -info));
  if (info > 0)
    throw ValidationError(
        fmt::format("dgetrf: U({0}, {0}) is exactly zero: the matrix of order {1} is singular", info, n));
  const char trans = 'N';
  dgetrs_(&trans, &m, &one, a.data(), &m, pivots.data(), b.data(), &m, &info, 1);
  if (info != 0) throw std::logic_error(fmt::format("dgetrs: argument {} is invalid", -info));
}

std::vector<double> hpl_solve(const HplProblem& problem) {
  std::vector<double> lu = problem.a, x = problem.b;
  std::vector<int> pivots(x.size());
  hpl_lu_solve(lu, x, pivots, problem.n);
  return x;
}

double hpl_scaled_residual(std::span<const double> a, std::span<const double> x, std::span<const double> b,
                           std::int64_t n) {
  require_sizes("hpl_scaled_residual", n, a.size(), x.size(), b.size());
  if (n == 0) return 0;
  // One pass over A, column by column: r = b - A x and the row sums of |A|.
  std::vector<double> r(b.begin(), b.end()), row_sums(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    const double xj = x[j];
    const double* column = a.data() + j * n;
    for (std::int64_t i = 0; i < n; ++i) {
      r[i] -= column[i] * xj;
      row_sums[i] += std::abs(column[i]);
    }
  }
  // std::max would drop a NaN; the residual must carry it.
  auto norm_inf = [](const auto& v) {
    double m = 0;
    for (double e : v) m = (std::isnan(e) || std::abs(e) > m) ? std::abs(e) : m;
    return m;
  };
  const double a_norm = *std::max_element(row_sums.begin(), row_sums.end());
  return norm_inf(r) / (kHplEps * (a_norm * norm_inf(x) + norm_inf(b)) * static_cast<double>(n));
}

std::unique_ptr<MicroBenchmark> make_hpl(const MicroParams& params) { return make_hpl(params, hpl_lu_solve); }

std::unique_ptr<MicroBenchmark> make_hpl(const MicroParams& params, HplSolver solver) {
  dense::require_order("hpl", params.size);
  if (params.threads < 1)
    throw UsageError(fmt::format("hpl: threads={} is not a thread count: give 1 or more", params.threads));
  dense::require_memory("hpl", params.size, "A and its LU copy, 2 n^2 doubles, plus b, x and pivots", hpl_bytes);
  openblas_set_num_threads(params.threads);
  return std::make_unique<Hpl>(params, solver ? std::move(solver) : HplSolver(hpl_lu_solve));
}

}  // namespace dlcbench
