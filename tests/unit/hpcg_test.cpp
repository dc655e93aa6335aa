// Expected values come from counting the stencil by hand (shown in the
// comments), from HPCG's flop model in ReportResults.cpp worked out for the
// grid in the test, and from runs of the reference HPCG 3.1 (serial build,
// --nx=16 --ny=16 --nz=16) where a test quotes them.
#include "workloads/micro/hpcg.h"

#include "core/memory.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using testing::error_of;

// The 27-point stencil's nonzeros on an nx x ny x nz grid: along one
// dimension of m points there are m pairs (i, i) and 2 (m - 1) pairs
// (i, i +- 1), and the stencil is their product over the three dimensions.
std::int64_t stencil_nonzeros(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2);
}

hpcg::Multigrid multigrid_of(int n) { return hpcg::build_multigrid(hpcg::generate_problem(n, n, n).A); }

TEST(HpcgProblem, StencilRowsAndRightHandSide) {
  // A box that is not a cube, so that mixing up nx, ny and nz shows.
  const int nx = 6, ny = 5, nz = 4;
  const hpcg::Problem p = hpcg::generate_problem(nx, ny, nz);
  const hpcg::SparseMatrix& A = p.A;
  ASSERT_EQ(A.rows(), nx * ny * nz);
  EXPECT_EQ(A.nonzeros(), stencil_nonzeros(nx, ny, nz));  // 16 * 13 * 10 = 2080

  for (int iz = 0; iz < nz; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < nx; ++ix) {
        const std::int64_t row = (iz * ny + iy) * nx + ix;
        // The neighbours within the box, counted here from the coordinates.
        std::set<std::int64_t> expected;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int x = ix + dx, y = iy + dy, z = iz + dz;
              if (x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz) expected.insert((z * ny + y) * nx + x);
            }
        std::set<std::int64_t> got;
        double row_sum = 0;
        for (std::int64_t k = A.row_start[row]; k < A.row_start[row + 1]; ++k) {
          got.insert(A.columns[k]);
          EXPECT_EQ(A.values[k], A.columns[k] == row ? 26.0 : -1.0) << "row " << row;
          row_sum += A.values[k];
        }
        EXPECT_EQ(got, expected) << "row " << row;
        EXPECT_EQ(A.values[A.diagonal[row]], 26.0);
        EXPECT_EQ(A.columns[A.diagonal[row]], row);
        const bool interior = ix > 0 && ix < nx - 1 && iy > 0 && iy < ny - 1 && iz > 0 && iz < nz - 1;
        const std::int64_t length = A.row_start[row + 1] - A.row_start[row];
        if (interior)
          EXPECT_EQ(length, 27);
        else
          EXPECT_LT(length, 27);
        EXPECT_EQ(p.b[row], row_sum);  // b = A * ones, row by row
      }
    }
  }
  // The corners have 2 * 2 * 2 = 8 nonzeros.
  EXPECT_EQ(A.row_start[1] - A.row_start[0], 8);

  // And through the SpMV: A * ones == b exactly (all terms are small integers).
  std::vector<double> ones(static_cast<std::size_t>(A.rows()), 1.0), Aones(ones.size());
  hpcg::spmv(A, ones, Aones);
  EXPECT_EQ(Aones, p.b);
}

TEST(HpcgProblem, MultigridHalvesTheGridAndInjectsAtEvenPoints) {
  const hpcg::Multigrid mg = multigrid_of(16);
  ASSERT_EQ(mg.levels.size(), 4u);
  const int edges[] = {16, 8, 4, 2};
  for (std::size_t l = 0; l < 4; ++l) {
    EXPECT_EQ(mg.levels[l].A.nx, edges[l]);
    EXPECT_EQ(mg.levels[l].A.nonzeros(), stencil_nonzeros(edges[l], edges[l], edges[l]));
  }
  EXPECT_TRUE(mg.levels[3].fine_row_of_coarse.empty());
  // Coarse point (1, 2, 3) on the 8^3 grid is fine point (2, 4, 6) on 16^3.
  EXPECT_EQ(mg.levels[0].fine_row_of_coarse[(3 * 8 + 2) * 8 + 1], (6 * 16 + 4) * 16 + 2);
}

TEST(HpcgSymmetry, SpmvAndMultigridAreSymmetric) {
  hpcg::Multigrid mg = multigrid_of(16);
  const hpcg::SymmetryResult s = hpcg::test_symmetry(mg, 42);
  // The reference HPCG reports 6.3e-05 (SpMV) and 3.7e-06 (MG) on this grid
  // with its own random vectors: rounding only.
  EXPECT_LT(s.spmv_departure, 1e-3);
  EXPECT_LT(s.mg_departure, 1e-3);
  EXPECT_NO_THROW(hpcg::validate_symmetry(s));
}

TEST(HpcgSymmetry, DetectsAnAsymmetricMatrix) {
  hpcg::Multigrid mg = multigrid_of(16);
  // a_ij = -2 but a_ji = -1 for an interior row i and its neighbour j = i + 1.
  hpcg::SparseMatrix& A = mg.levels[0].A;
  const std::int64_t row = (8 * 16 + 8) * 16 + 8;
  const auto first = A.columns.begin() + A.row_start[row];
  const auto last = A.columns.begin() + A.row_start[row + 1];
  const auto entry = std::find(first, last, static_cast<std::int32_t>(row + 1));
  ASSERT_NE(entry, last);
  A.values[static_cast<std::size_t>(entry - A.columns.begin())] = -2.0;

  const hpcg::SymmetryResult s = hpcg::test_symmetry(mg, 42);
  EXPECT_GT(s.spmv_departure, 100 * hpcg::kSymmetryTolerance);
  EXPECT_GT(s.mg_departure, 100 * hpcg::kSymmetryTolerance);  // the smoother uses the same matrix
  EXPECT_NE(error_of<ValidationError>([&] { hpcg::validate_symmetry(s); }).find("SpMV is not symmetric"),
            std::string::npos);
}

TEST(HpcgSymmetry, DetectsAnAsymmetricPreconditionerAlone) {
  hpcg::Multigrid mg = multigrid_of(16);
  // Break the 8^3 level's matrix only: the SpMV stays symmetric, the V-cycle
  // does not.
  hpcg::SparseMatrix& coarse = mg.levels[1].A;
  const std::int64_t row = (4 * 8 + 4) * 8 + 4;
  coarse.values[static_cast<std::size_t>(coarse.row_start[row])] = -3.0;  // its first (off-diagonal) entry

  const hpcg::SymmetryResult s = hpcg::test_symmetry(mg, 42);
  EXPECT_LT(s.spmv_departure, hpcg::kSymmetryTolerance);
  EXPECT_GT(s.mg_departure, 100 * hpcg::kSymmetryTolerance);
  EXPECT_NE(error_of<ValidationError>([&] { hpcg::validate_symmetry(s); })
                .find("multigrid preconditioner is not symmetric"),
            std::string::npos);
}

TEST(HpcgConvergence, EachIterationReducesTheResidualOn16Cubed) {
  hpcg::Problem p = hpcg::generate_problem(16, 16, 16);
  hpcg::Multigrid mg = hpcg::build_multigrid(std::move(p.A));
  std::vector<double> x(p.b.size(), 0.0);
  hpcg::CgWork work(mg.A().rows());
  const hpcg::CgResult r = hpcg::cg(mg, p.b, x, hpcg::kIterationsPerSet, 0.0, true, work);
  ASSERT_EQ(r.iterations, 50);
  ASSERT_EQ(r.residual_norms.size(), 51u);
  // PCG minimises the error in the A-norm, not the residual, so this is not a
  // theorem; it holds on this grid (the reference HPCG's log shows the same).
  for (std::size_t k = 1; k < r.residual_norms.size(); ++k)
    EXPECT_LT(r.residual_norms[k], r.residual_norms[k - 1]) << "iteration " << k;
  // The reference HPCG's log on this grid: 0.175288 after one iteration,
  // 0.000417347 after five and 3.7e-41 after fifty.
  EXPECT_NEAR(r.residual_norms[1] / r.residual_norms[0], 0.175288, 1e-6);
  EXPECT_NEAR(r.residual_norms[5] / r.residual_norms[0], 0.000417347, 1e-9);
  EXPECT_LT(r.reduction(), 1e-30);
  // The benchmark's bound: ten times the reduction at which its convergence
  // test stopped (below 1e-6, after 9 iterations here).
  std::vector<double> x2(p.b.size());
  const double bound = hpcg::set_reduction_bound(hpcg::test_convergence(mg, p.b, x2, work));
  EXPECT_LE(bound, 10 * 1e-6);
  EXPECT_LT(r.reduction(), bound);
  // x is the solution, all ones.
  for (double v : x) ASSERT_NEAR(v, 1.0, 1e-12);
}

TEST(HpcgConvergence, MultigridNeedsFewerIterationsThanPlainCg) {
  hpcg::Problem p = hpcg::generate_problem(16, 16, 16);
  hpcg::Multigrid mg = hpcg::build_multigrid(std::move(p.A));
  std::vector<double> x(p.b.size(), 0.0);
  hpcg::CgWork work(mg.A().rows());
  const hpcg::CgResult preconditioned = hpcg::cg(mg, p.b, x, 1000, 1e-6, true, work);
  std::fill(x.begin(), x.end(), 0.0);
  const hpcg::CgResult plain = hpcg::cg(mg, p.b, x, 1000, 1e-6, false, work);
  EXPECT_LE(preconditioned.reduction(), 1e-6);
  EXPECT_LE(plain.reduction(), 1e-6);
  EXPECT_EQ(preconditioned.iterations, 9);  // the reference HPCG's log: 7.2e-07 after 9
  EXPECT_GE(plain.iterations, 2 * preconditioned.iterations);

  // The same through the benchmark's own test.
  const hpcg::ConvergenceResult c = hpcg::test_convergence(mg, p.b, x, work);
  EXPECT_EQ(c.preconditioned_iterations, preconditioned.iterations);
  EXPECT_EQ(c.plain_iterations, plain.iterations);
  EXPECT_NO_THROW(hpcg::validate_convergence(c));

  // A preconditioner that does nothing useful fails it.
  hpcg::ConvergenceResult weak = c;
  weak.preconditioned_iterations = c.plain_iterations;
  EXPECT_NE(error_of<ValidationError>([&] { hpcg::validate_convergence(weak); }).find("does not pay"),
            std::string::npos);
}

TEST(HpcgFlops, OneSetMatchesHpcgsModelByHand) {
  // HPCG's ReportResults for one set of 50 iterations on 16^3, with the
  // levels' rows and nonzeros 16^3 = 4096 / 46^3 = 97336, 8^3: 22^3 = 10648,
  // 4^3: 10^3 = 1000, 2^3: 4^3 = 64:
  //   dot products  (3 * 50 + 1) * 2 * 4096           =  1,236,992
  //   WAXPBY        (3 * 50 + 1) * 2 * 4096           =  1,236,992
  //   SpMV          (50 + 1) * 2 * 97336              =  9,928,272
  //   MG            50 * (4 + 2 + 4) * (97336 + 10648 + 1000)
  //                 + 50 * 4 * 64                     = 54,504,800
  //   total                                           = 66,907,056
  // (the reference HPCG reports 3.34535e+08 for five such sets).
  const double expected = 1236992.0 + 1236992.0 + 9928272.0 + 54504800.0;
  ASSERT_EQ(expected, 66907056.0);
  const hpcg::Multigrid mg = multigrid_of(16);
  EXPECT_EQ(hpcg::cg_flops(mg, 50), expected);
  // Plain CG has no MG term.
  EXPECT_EQ(hpcg::cg_flops(mg, 50, false), expected - 54504800.0);

  // The benchmark reports it as the work of one timed set. make_hpcg sets
  // the process's OpenMP thread count; put it back for the other tests.
  const int threads_before = omp_get_max_threads();
  MicroParams params;
  params.size = 16;
  params.threads = 2;
  const auto bench = make_hpcg(params);
  const MicroResult r = bench->run();
  EXPECT_EQ(r.work, expected);
  EXPECT_GT(r.seconds, 0);
  EXPECT_EQ(r.detail["iterations"], 50);
  const double bound = bench->describe()["set_residual_reduction_bound"];
  EXPECT_LT(r.detail["residual_reduction"].get<double>(), bound);
  EXPECT_LT(r.detail["true_residual_reduction"].get<double>(), bound);
  // Every set starts from x = 0 and does the same.
  EXPECT_EQ(bench->run().detail["residual_reduction"], r.detail["residual_reduction"]);

  const nlohmann::json d = bench->describe();
  EXPECT_EQ(d["benchmark"], "HPCG method (not an official HPCG result)");
  EXPECT_EQ(d["grid"], nlohmann::json({16, 16, 16}));
  EXPECT_EQ(d["rows"], 4096);
  EXPECT_EQ(d["nonzeros"], 97336);
  EXPECT_EQ(d["levels"], 4);
  EXPECT_EQ(d["cg_iterations_per_set"], 50);
  EXPECT_EQ(d["threads"], 2);
  EXPECT_EQ(d["symmetry"]["passed"], true);
  EXPECT_EQ(d["convergence"]["preconditioned_iterations"], 9);
  EXPECT_GT(d["memory_bytes"].get<std::int64_t>(), 4096 * 27 * 12);
  EXPECT_EQ(omp_get_max_threads(), 2);
  omp_set_num_threads(threads_before);
}

TEST(HpcgSize, RejectsSizesTheMultigridCannotHalve) {
  for (std::int64_t n : {30, 8}) {
    MicroParams params;
    params.size = n;
    EXPECT_EQ(error_of<UsageError>([&] { make_hpcg(params); }),
              "hpcg: n=" + std::to_string(n) +
                  " must be a multiple of 8 and at least 16 (the multigrid halves the grid three times)");
  }
}

TEST(HpcgSize, MemoryEstimateAndCheck) {
  // The estimate covers what the hierarchy allocates plus b, x, the four CG
  // vectors and the symmetry test's three, and not much more.
  const hpcg::Multigrid mg = multigrid_of(16);
  const double allocated = static_cast<double>(hpcg::memory_bytes(mg)) + 9 * 4096 * 8;
  EXPECT_GE(hpcg::estimated_memory_bytes(16), allocated);
  EXPECT_LE(hpcg::estimated_memory_bytes(16), 1.01 * allocated);

  const auto available = static_cast<std::int64_t>(hpcg::estimated_memory_bytes(40)) + 1;
  EXPECT_NO_THROW(hpcg::check_memory(40, available));
  const std::string message = error_of<UsageError>([&] { hpcg::check_memory(64, available); });
  EXPECT_NE(message.find("hpcg: n=64 needs about"), std::string::npos) << message;
  EXPECT_NE(message.find("use n=40 or smaller"), std::string::npos) << message;
  EXPECT_NE(error_of<UsageError>([&] { hpcg::check_memory(16, 1000); }).find("even n=16 does not fit"),
            std::string::npos);
  EXPECT_GT(usable_memory_bytes(), 0);
}

}  // namespace
}  // namespace dlcbench
