#include "workloads/micro/hpl.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

MicroParams hpl_params(std::int64_t n) {
  MicroParams p;
  p.size = n;
  p.threads = 1;
  p.seed = 11;
  return p;
}

std::size_t largest_entry(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end(), [](double l, double r) {
                                    return std::abs(l) < std::abs(r);
                                  }) -
                                  v.begin());
}

// HPL_pdtest.c's rate, Gflops = ((N / 1e9) * (N / t)) * (2/3 N + 3/2),
// times t * 1e9.
TEST(HplFlops, MatchesHplsFormula) {
  for (std::int64_t n : {1, 2, 3, 200, 4096, 8192, 100000}) {
    const auto d = static_cast<double>(n);
    const double hpl = ((d / 1.0e+9) * (d / 1.0)) * ((2.0 / 3.0) * d + (3.0 / 2.0)) * 1.0e+9;
    EXPECT_NEAR(hpl_flops(n), hpl, 1e-12 * hpl) << "n=" << n;
  }
  EXPECT_DOUBLE_EQ(hpl_flops(3), 18.0 + 13.5);  // 2/3 27 + 3/2 9
}

// The formula on a case worked by hand: infinity norms (||A||_oo is the
// largest row sum, 6, not the largest column sum, 4), eps = 2^-53, times n.
TEST(HplResidual, IsHplsScaledResidual) {
  const std::vector<double> a = {3, 1, 3, 0};  // column-major [[3, 3], [1, 0]]
  const std::vector<double> b = {6, 1};        // A (1, 1)
  const double delta = std::ldexp(1.0, -20);
  const std::vector<double> x = {1, 1 + delta};  // A x - b = (3 delta, 0)
  const double eps = std::ldexp(1.0, -53);
  EXPECT_EQ(kHplEps, eps);
  EXPECT_DOUBLE_EQ(hpl_scaled_residual(a, x, b, 2), 3 * delta / (eps * (6 * (1 + delta) + 6) * 2));
  EXPECT_EQ(hpl_scaled_residual(a, std::vector<double>{1, 1}, b, 2), 0.0);
  EXPECT_TRUE(std::isnan(hpl_scaled_residual(a, std::vector<double>{1, NAN}, b, 2)));
}

TEST(HplSolve, SmallProblemPasses) {
  const auto problem = hpl_generate(200, 5);
  for (double v : problem.a) ASSERT_TRUE(v >= -0.5 && v <= 0.5);
  const auto x = hpl_solve(problem);
  const double r = hpl_scaled_residual(problem.a, x, problem.b, 200);
  EXPECT_LT(r, kHplResidualThreshold);
  EXPECT_GE(r, 0.0);
}

// A solution off by one part in 10^9 in one entry (its largest) is far
// outside what LU with partial pivoting leaves on a random matrix.
TEST(HplResidual, FlagsASlightlyWrongSolution) {
  const auto problem = hpl_generate(200, 5);
  auto x = hpl_solve(problem);
  ASSERT_LT(hpl_scaled_residual(problem.a, x, problem.b, 200), kHplResidualThreshold);
  x[largest_entry(x)] *= 1 + 1e-9;
  EXPECT_GT(hpl_scaled_residual(problem.a, x, problem.b, 200), 10 * kHplResidualThreshold);
}

TEST(HplSolve, SingularMatrixIsAValidationError) {
  std::vector<double> a(9, 0.0), b = {1, 2, 3};
  std::vector<int> pivots(3);
  EXPECT_THAT(testing::error_of<ValidationError>([&] { hpl_lu_solve(a, b, pivots, 3); }),
              HasSubstr("singular"));
}

TEST(HplRun, PassesAndCountsHplsFlops) {
  auto bench = make_hpl(hpl_params(200));
  const auto d = bench->describe();
  EXPECT_EQ(d["benchmark"], "hpl");
  EXPECT_EQ(d["n"], 200);
  EXPECT_EQ(d["routine"], "dgetrf+dgetrs");
  EXPECT_EQ(d["flop_formula"], "2/3 n^3 + 3/2 n^2");
  EXPECT_EQ(d["bytes"], 2 * 200 * 200 * 8 + 2 * 200 * 8 + 200 * 4);  // A, its copy, b, x, pivots
  EXPECT_EQ(d["threads"], 1);
  EXPECT_FALSE(d["blas_core"].get<std::string>().empty());
  EXPECT_EQ(d["residual_threshold"], 16.0);
  for (int i = 0; i < 2; ++i) {
    const auto r = bench->run();
    EXPECT_GT(r.seconds, 0);
    EXPECT_EQ(r.work, hpl_flops(200));
    EXPECT_LT(r.detail["scaled_residual"].get<double>(), kHplResidualThreshold);
    EXPECT_EQ(r.detail["passed"], true);
  }
}

// run() checks the solver's answer against the original A and b: a solver
// that factorises A scaled by 1 + 1e-6, and one that returns a solution off
// by 1e-9 in its largest entry, both fail the run.
TEST(HplRun, RejectsWrongSolutions) {
  const HplSolver scaled_a = [](std::span<double> a, std::span<double> b, std::span<int> pivots, std::int64_t n) {
    for (double& v : a) v *= 1 + 1e-6;
    hpl_lu_solve(a, b, pivots, n);
  };
  const auto message = testing::error_of<ValidationError>([&] { make_hpl(hpl_params(200), scaled_a)->run(); });
  EXPECT_THAT(message, HasSubstr("hpl n=200: scaled residual"));
  EXPECT_THAT(message, HasSubstr("is not below HPL's threshold 16"));

  const HplSolver off_x = [](std::span<double> a, std::span<double> b, std::span<int> pivots, std::int64_t n) {
    hpl_lu_solve(a, b, pivots, n);
    auto largest = std::max_element(b.begin(), b.end(), [](double l, double r) { return std::abs(l) < std::abs(r); });
    *largest *= 1 + 1e-9;
  };
  EXPECT_THAT(testing::error_of<ValidationError>([&] { make_hpl(hpl_params(200), off_x)->run(); }),
              HasSubstr("scaled residual"));
}

TEST(HplUsage, RejectsProblemsBeyondMemory) {
  const auto message = testing::error_of<UsageError>([] { make_hpl(hpl_params(1'000'000)); });
  EXPECT_THAT(message, HasSubstr("hpl with n=1000000 needs 14.55 TiB"));
  EXPECT_THAT(message, HasSubstr("of memory is available (MemAvailable"));
  EXPECT_THAT(message, HasSubstr("choose a smaller n (at most n="));
}

TEST(HplUsage, RejectsBadOrderAndThreads) {
  EXPECT_THAT(testing::error_of<UsageError>([] { make_hpl(hpl_params(-5)); }),
              HasSubstr("hpl: n=-5 is not a usable matrix order"));
  auto p = hpl_params(100);
  p.threads = 0;
  EXPECT_THAT(testing::error_of<UsageError>([&] { make_hpl(p); }), HasSubstr("threads=0"));
}

}  // namespace
}  // namespace dlcbench
