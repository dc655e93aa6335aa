#include "workloads/micro/hpcg.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/timer.h"

namespace dlcbench {
namespace hpcg {
namespace {

constexpr double kDiagonal = 26.0;
constexpr double kOffDiagonal = -1.0;

// Grid points in 0..n-1 that are within one of i: the stencil's extent in one
// dimension.
int neighbours(int i, int n) { return (i > 0 ? 1 : 0) + 1 + (i + 1 < n ? 1 : 0); }

// Nonzeros of the 27-point stencil on an m^3 grid: each dimension contributes
// the pairs (i, j) with |i - j| <= 1, of which there are m + 2 (m - 1).
double stencil_nonzeros(double m) { return std::pow(3 * m - 2, 3); }

void copy(std::span<const double> from, std::span<double> to) {
  const std::int64_t n = static_cast<std::int64_t>(to.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) to[i] = from[i];
}

void fill_zero(std::span<double> x) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) x[i] = 0;
}

template <class T>
std::int64_t bytes_of(const std::vector<T>& v) {
  return static_cast<std::int64_t>(v.capacity() * sizeof(T));
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

}  // namespace

SparseMatrix generate_matrix(int nx, int ny, int nz) {
  SparseMatrix A;
  A.nx = nx;
  A.ny = ny;
  A.nz = nz;
  const std::int64_t plane = std::int64_t{nx} * ny;
  const std::int64_t rows = plane * nz;

  // Row lengths first, so that the rows can then be filled in parallel, each
  // at its own offset.
  A.row_start.assign(static_cast<std::size_t>(rows + 1), 0);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix)
        A.row_start[iz * plane + iy * nx + ix + 1] = neighbours(ix, nx) * neighbours(iy, ny) * neighbours(iz, nz);
  std::partial_sum(A.row_start.begin(), A.row_start.end(), A.row_start.begin());

  A.columns.resize(static_cast<std::size_t>(A.row_start.back()));
  A.values.resize(A.columns.size());
  A.diagonal.resize(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (int iz = 0; iz < nz; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < nx; ++ix) {
        const std::int64_t row = iz * plane + iy * nx + ix;
        std::int64_t pos = A.row_start[row];
        for (int dz = -1; dz <= 1; ++dz) {
          if (iz + dz < 0 || iz + dz >= nz) continue;
          for (int dy = -1; dy <= 1; ++dy) {
            if (iy + dy < 0 || iy + dy >= ny) continue;
            for (int dx = -1; dx <= 1; ++dx) {
              if (ix + dx < 0 || ix + dx >= nx) continue;
              const std::int64_t column = row + dz * plane + dy * nx + dx;
              A.columns[pos] = static_cast<std::int32_t>(column);
              A.values[pos] = column == row ? kDiagonal : kOffDiagonal;
              if (column == row) A.diagonal[row] = pos;
              ++pos;
            }
          }
        }
      }
    }
  }
  return A;
}

Problem generate_problem(int nx, int ny, int nz) {
  Problem p{generate_matrix(nx, ny, nz), {}};
  // Row sums, as HPCG writes them: 26 minus one per off-diagonal neighbour.
  // Every term is a small integer, so this equals A * ones exactly.
  p.b.resize(static_cast<std::size_t>(p.A.rows()));
  for (std::int64_t i = 0; i < p.A.rows(); ++i) {
    const std::int64_t off_diagonals = p.A.row_start[i + 1] - p.A.row_start[i] - 1;
    p.b[i] = kDiagonal + kOffDiagonal * static_cast<double>(off_diagonals);
  }
  return p;
}

Multigrid build_multigrid(SparseMatrix fine, int levels) {
  Multigrid mg;
  mg.levels.resize(static_cast<std::size_t>(levels));
  mg.levels[0].A = std::move(fine);
  for (std::size_t l = 0; l + 1 < mg.levels.size(); ++l) {
    Level& f = mg.levels[l];
    Level& c = mg.levels[l + 1];
    const int nxf = f.A.nx, nyf = f.A.ny;
    c.A = generate_matrix(nxf / 2, nyf / 2, f.A.nz / 2);
    // Coarse point (ix, iy, iz) is fine point (2ix, 2iy, 2iz).
    f.fine_row_of_coarse.resize(static_cast<std::size_t>(c.A.rows()));
    for (int iz = 0; iz < c.A.nz; ++iz)
      for (int iy = 0; iy < c.A.ny; ++iy)
        for (int ix = 0; ix < c.A.nx; ++ix)
          f.fine_row_of_coarse[(std::int64_t{iz} * c.A.ny + iy) * c.A.nx + ix] =
              static_cast<std::int32_t>((std::int64_t{2 * iz} * nyf + 2 * iy) * nxf + 2 * ix);
    f.Ax.assign(static_cast<std::size_t>(f.A.rows()), 0.0);
    c.r.assign(static_cast<std::size_t>(c.A.rows()), 0.0);
    c.x.assign(static_cast<std::size_t>(c.A.rows()), 0.0);
  }
  return mg;
}

void spmv(const SparseMatrix& A, std::span<const double> x, std::span<double> y) {
  const std::int64_t* start = A.row_start.data();
  const std::int32_t* columns = A.columns.data();
  const double* values = A.values.data();
  const double* xv = x.data();
  double* yv = y.data();
  const std::int64_t rows = A.rows();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (std::int64_t k = start[i]; k < start[i + 1]; ++k) sum += values[k] * xv[columns[k]];
    yv[i] = sum;
  }
}

// Sequential on purpose: each row uses the values just updated in the rows
// before it (after it, on the way back), which is what makes it Gauss-Seidel.
// The reference HPCG does the same; parallel versions reorder the rows
// (multicolouring), which changes the smoother and its convergence.
void symgs(const SparseMatrix& A, std::span<const double> r, std::span<double> x) {
  const std::int64_t* start = A.row_start.data();
  const std::int32_t* columns = A.columns.data();
  const double* values = A.values.data();
  const std::int64_t* diagonal = A.diagonal.data();
  const double* rv = r.data();
  double* xv = x.data();
  // x_i = (r_i - sum_{j != i} a_ij x_j) / a_ii, written as a correction of
  // the current x_i so that the inner loop needs no test for the diagonal.
  const auto relax = [&](std::int64_t i) {
    double sum = rv[i];
    for (std::int64_t k = start[i]; k < start[i + 1]; ++k) sum -= values[k] * xv[columns[k]];
    xv[i] += sum / values[diagonal[i]];
  };
  const std::int64_t rows = A.rows();
  for (std::int64_t i = 0; i < rows; ++i) relax(i);
  for (std::int64_t i = rows - 1; i >= 0; --i) relax(i);
}

double dot(std::span<const double> a, std::span<const double> b) {
  const double* av = a.data();
  const double* bv = b.data();
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += av[i] * bv[i];
  return sum;
}

void waxpby(double alpha, std::span<const double> x, double beta, std::span<const double> y,
            std::span<double> w) {
  const double* xv = x.data();
  const double* yv = y.data();
  double* wv = w.data();
  const std::int64_t n = static_cast<std::int64_t>(w.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) wv[i] = alpha * xv[i] + beta * yv[i];
}

void mg_vcycle(Multigrid& mg, std::span<const double> r, std::span<double> x, std::size_t level) {
  Level& here = mg.levels[level];
  fill_zero(x);
  if (level + 1 == mg.levels.size()) {  // the coarsest grid: one sweep stands in for a solve
    symgs(here.A, r, x);
    return;
  }
  symgs(here.A, r, x);
  spmv(here.A, x, here.Ax);

  // Restriction by injection: the coarse right-hand side is the residual
  // r - Ax at the fine points that are also coarse points.
  Level& below = mg.levels[level + 1];
  const std::int32_t* fine = here.fine_row_of_coarse.data();
  const std::int64_t coarse_rows = below.A.rows();
  double* rc = below.r.data();
  const double* rv = r.data();
  const double* axv = here.Ax.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < coarse_rows; ++i) rc[i] = rv[fine[i]] - axv[fine[i]];

  mg_vcycle(mg, below.r, below.x, level + 1);

  // Prolongation by injection, the transpose of the restriction (which keeps
  // the V-cycle symmetric): add each coarse correction at its fine point.
  const double* xc = below.x.data();
  double* xv = x.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < coarse_rows; ++i) xv[fine[i]] += xc[i];

  symgs(here.A, r, x);
}

CgWork::CgWork(std::int64_t rows)
    : r(static_cast<std::size_t>(rows)), z(r.size()), p(r.size()), Ap(r.size()) {}

CgResult cg(Multigrid& mg, std::span<const double> b, std::span<double> x, int max_iterations,
            double tolerance, bool precondition, CgWork& work) {
  const SparseMatrix& A = mg.A();
  std::span<double> r = work.r, z = work.z, p = work.p, Ap = work.Ap;
  CgResult result;
  result.residual_norms.reserve(static_cast<std::size_t>(max_iterations) + 1);

  // r = b - A x, with x copied to p for the product as HPCG does (so the
  // preamble costs the SpMV the flop model counts).
  copy(x, p);
  spmv(A, p, Ap);
  waxpby(1.0, b, -1.0, Ap, r);
  double normr = std::sqrt(dot(r, r));
  const double normr0 = normr;
  result.residual_norms.push_back(normr);

  double rtz = 0;
  for (int k = 1; k <= max_iterations && normr > tolerance * normr0; ++k) {
    if (precondition)
      mg_vcycle(mg, r, z);
    else
      copy(r, z);
    if (k == 1) {
      copy(z, p);
      rtz = dot(r, z);
    } else {
      const double old_rtz = rtz;
      rtz = dot(r, z);
      waxpby(1.0, z, rtz / old_rtz, p, p);  // p = z + beta p
    }
    spmv(A, p, Ap);
    const double alpha = rtz / dot(p, Ap);
    waxpby(1.0, x, alpha, p, x);
    waxpby(1.0, r, -alpha, Ap, r);
    normr = std::sqrt(dot(r, r));
    result.residual_norms.push_back(normr);
    result.iterations = k;
  }
  result.flops = cg_flops(mg, result.iterations, precondition);
  return result;
}

double cg_flops(const Multigrid& mg, int iterations, bool precondition) {
  const double it = iterations;
  const double rows = static_cast<double>(mg.A().rows());
  const double nnz = static_cast<double>(mg.A().nonzeros());
  const double dots = (3 * it + 1) * 2 * rows;
  const double waxpbys = (3 * it + 1) * 2 * rows;
  const double spmvs = (it + 1) * 2 * nnz;
  double preconditioner = 0;
  if (precondition) {
    for (std::size_t l = 0; l + 1 < mg.levels.size(); ++l) {
      const double level_nnz = static_cast<double>(mg.levels[l].A.nonzeros());
      preconditioner += it * (4 + 2 + 4) * level_nnz;  // pre-smoothing, residual, post-smoothing
    }
    preconditioner += it * 4 * static_cast<double>(mg.levels.back().A.nonzeros());
  }
  return dots + waxpbys + spmvs + preconditioner;
}

SymmetryResult test_symmetry(Multigrid& mg, std::uint64_t seed) {
  const SparseMatrix& A = mg.A();
  const std::size_t n = static_cast<std::size_t>(A.rows());
  std::vector<double> x(n), y(n), z(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (double& v : x) v = uniform(rng);
  for (double& v : y) v = uniform(rng);

  // HPCG's scale: it grows with the squared norms, so it is loose on large
  // grids; a single wrong entry is still caught by a wide margin on small
  // ones (see the tests).
  const double a_norm = 2 * kDiagonal;
  const double xx = dot(x, x), yy = dot(y, y);
  const double scale = (xx * a_norm * yy + yy * a_norm * xx) * std::numeric_limits<double>::epsilon();

  SymmetryResult result;
  spmv(A, y, z);
  const double xAy = dot(x, z);
  spmv(A, x, z);
  const double yAx = dot(y, z);
  result.spmv_departure = std::fabs(xAy - yAx) / scale;

  mg_vcycle(mg, y, z);
  const double xMy = dot(x, z);
  mg_vcycle(mg, x, z);
  const double yMx = dot(y, z);
  result.mg_departure = std::fabs(xMy - yMx) / scale;
  return result;
}

void validate_symmetry(const SymmetryResult& result) {
  // Written so that NaN fails too.
  if (!(result.spmv_departure <= kSymmetryTolerance))
    throw ValidationError(fmt::format("hpcg: the SpMV is not symmetric: scaled departure {:.3g} > {}",
                                      result.spmv_departure, kSymmetryTolerance));
  if (!(result.mg_departure <= kSymmetryTolerance))
    throw ValidationError(fmt::format(
        "hpcg: the multigrid preconditioner is not symmetric: scaled departure {:.3g} > {}",
        result.mg_departure, kSymmetryTolerance));
}

int preconditioned_iteration_bound(int n) { return n / 2 + 10; }

ConvergenceResult test_convergence(Multigrid& mg, std::span<const double> b, std::span<double> x,
                                   CgWork& work) {
  const SparseMatrix& A = mg.A();
  ConvergenceResult result;
  result.grid = std::max({A.nx, A.ny, A.nz});

  fill_zero(x);
  const int bound = preconditioned_iteration_bound(result.grid);
  const CgResult preconditioned = cg(mg, b, x, bound, kConvergenceTarget, true, work);
  result.preconditioned_iterations = preconditioned.iterations;
  result.preconditioned_reduction = preconditioned.reduction();
  const auto at_50 = std::min<std::size_t>(kIterationsPerSet, preconditioned.residual_norms.size() - 1);
  result.reference_reduction = preconditioned.residual_norms[at_50] / preconditioned.residual_norms.front();

  fill_zero(x);
  const int cap = kPlainIterationFactor * preconditioned.iterations;
  const CgResult plain = cg(mg, b, x, cap, kConvergenceTarget, false, work);
  result.plain_iterations = plain.iterations;
  result.plain_reduction = plain.reduction();
  result.plain_reached_target = plain.reduction() <= kConvergenceTarget;
  return result;
}

void validate_convergence(const ConvergenceResult& r) {
  if (!(r.preconditioned_reduction <= kConvergenceTarget))
    throw ValidationError(fmt::format(
        "hpcg: CG with the multigrid preconditioner reduced the residual only to {:.3g} in {} iterations "
        "on the {}^3 grid (expected {:g} within {})",
        r.preconditioned_reduction, r.preconditioned_iterations, r.grid, kConvergenceTarget,
        preconditioned_iteration_bound(r.grid)));
  if (r.plain_reached_target && r.plain_iterations < kMinIterationRatio * r.preconditioned_iterations)
    throw ValidationError(fmt::format(
        "hpcg: the multigrid preconditioner does not pay: {} preconditioned CG iterations against {} plain "
        "ones to reduce the residual by {:g} (expected at least {}x fewer)",
        r.preconditioned_iterations, r.plain_iterations, kConvergenceTarget, kMinIterationRatio));
}

double set_reduction_bound(const ConvergenceResult& result) {
  return kSetReductionSlack * result.reference_reduction;
}

std::int64_t memory_bytes(const Multigrid& mg) {
  std::int64_t bytes = 0;
  for (const Level& l : mg.levels) {
    bytes += bytes_of(l.A.row_start) + bytes_of(l.A.columns) + bytes_of(l.A.values) + bytes_of(l.A.diagonal);
    bytes += bytes_of(l.fine_row_of_coarse) + bytes_of(l.Ax) + bytes_of(l.r) + bytes_of(l.x);
  }
  return bytes;
}

double estimated_memory_bytes(std::int64_t n) {
  double bytes = 0;
  for (int l = 0; l < kLevels; ++l) {
    const double m = static_cast<double>(n >> l);
    const double rows = m * m * m;
    const double nnz = stencil_nonzeros(m);
    bytes += (rows + 1) * sizeof(std::int64_t) + nnz * (sizeof(std::int32_t) + sizeof(double)) +
             rows * sizeof(std::int64_t);  // the matrix
    if (l + 1 < kLevels) bytes += rows / 8 * sizeof(std::int32_t) + rows * sizeof(double);  // injection map, Ax
    if (l > 0) bytes += 2 * rows * sizeof(double);                                          // r, x
  }
  // b, x, r, z, p, Ap, and the symmetry test's x, y, z.
  const double fine_rows = std::pow(static_cast<double>(n), 3);
  return bytes + 9 * fine_rows * sizeof(double);
}

void check_memory(std::int64_t n, std::int64_t available_bytes) {
  const double needed = estimated_memory_bytes(n);
  if (needed <= static_cast<double>(available_bytes)) return;
  std::int64_t fits = 0;
  for (std::int64_t m = 16; m < n && estimated_memory_bytes(m) <= static_cast<double>(available_bytes); m += 8)
    fits = m;
  const std::string fix = fits > 0 ? fmt::format("use n={} or smaller, or free memory", fits)
                                   : std::string("free memory (even n=16 does not fit)");
  throw UsageError(fmt::format("hpcg: n={} needs about {} of memory but only {} is available "
                               "(MemAvailable and the cgroup memory limit); {}",
                               n, gib(needed), gib(static_cast<double>(available_bytes)), fix));
}

void check_size(std::int64_t n) {
  if (n < 16 || n % 8 != 0)
    throw UsageError(fmt::format(
        "hpcg: n={} must be a multiple of 8 and at least 16 (the multigrid halves the grid three times)", n));
  // Row and column indices are 32-bit, as HPCG's local_int_t: n^3 < 2^31.
  if (n > 1288)
    throw UsageError(fmt::format("hpcg: n={} is too large: at most 1288 (the grid's rows are indexed in 32 bits)",
                                 n));
}

}  // namespace hpcg

namespace {

class HpcgBenchmark final : public MicroBenchmark {
 public:
  explicit HpcgBenchmark(const MicroParams& params)
      : n_(static_cast<int>(params.size)), threads_(params.threads) {
    hpcg::Problem problem = hpcg::generate_problem(n_, n_, n_);
    b_ = std::move(problem.b);
    mg_ = hpcg::build_multigrid(std::move(problem.A));
    x_.assign(b_.size(), 0.0);
    work_ = std::make_unique<hpcg::CgWork>(mg_.A().rows());

    // Validation before any timing, as HPCG runs TestCG and TestSymmetry
    // before its timed sets.
    symmetry_ = hpcg::test_symmetry(mg_, params.seed);
    hpcg::validate_symmetry(symmetry_);
    convergence_ = hpcg::test_convergence(mg_, b_, x_, *work_);
    hpcg::validate_convergence(convergence_);
  }

  nlohmann::json describe() const override {
    const hpcg::SparseMatrix& A = mg_.A();
    const std::int64_t vectors = 6 * A.rows() * static_cast<std::int64_t>(sizeof(double));  // b, x, r, z, p, Ap
    return {
        {"benchmark", "HPCG method (not an official HPCG result)"},
        {"grid", {A.nx, A.ny, A.nz}},
        {"rows", A.rows()},
        {"nonzeros", A.nonzeros()},
        {"levels", hpcg::kLevels},
        {"cg_iterations_per_set", hpcg::kIterationsPerSet},
        {"set_residual_reduction_bound", hpcg::set_reduction_bound(convergence_)},
        {"symmetry",
         {{"spmv_departure", symmetry_.spmv_departure},
          {"mg_departure", symmetry_.mg_departure},
          {"tolerance", hpcg::kSymmetryTolerance},
          {"passed", true}}},
        {"convergence",
         {{"target_reduction", hpcg::kConvergenceTarget},
          {"preconditioned_iterations", convergence_.preconditioned_iterations},
          {"preconditioned_iteration_bound", hpcg::preconditioned_iteration_bound(convergence_.grid)},
          {"preconditioned_reduction", convergence_.preconditioned_reduction},
          {"reference_reduction_at_50", convergence_.reference_reduction},
          {"plain_iterations", convergence_.plain_iterations},
          {"plain_reduction", convergence_.plain_reduction},
          {"plain_reached_target", convergence_.plain_reached_target},
          {"min_iteration_ratio", hpcg::kMinIterationRatio},
          {"passed", true}}},
        {"threads", threads_},
        {"memory_bytes", hpcg::memory_bytes(mg_) + vectors},
    };
  }

  MicroResult run() override {
    std::fill(x_.begin(), x_.end(), 0.0);  // every set starts from x = 0, outside the timing as in HPCG
    Stopwatch watch;
    const hpcg::CgResult set = hpcg::cg(mg_, b_, x_, hpcg::kIterationsPerSet, 0.0, true, *work_);
    const double seconds = watch.seconds();

    // The recurrence's residual can drift from b - Ax; check the true one too
    // (one untimed SpMV).
    hpcg::spmv(mg_.A(), x_, work_->Ap);
    hpcg::waxpby(1.0, b_, -1.0, work_->Ap, work_->r);
    const double true_reduction = std::sqrt(hpcg::dot(work_->r, work_->r) / hpcg::dot(b_, b_));

    const double reduction = set.reduction();
    const double bound = hpcg::set_reduction_bound(convergence_);
    if (!(reduction < bound) || !(true_reduction < bound))
      throw ValidationError(fmt::format(
          "hpcg: {} CG iterations reduced the residual only to {:.3g} (true residual {:.3g}); expected < {:.3g}, "
          "{} times the untimed reference run's {:.3g}",
          set.iterations, reduction, true_reduction, bound, hpcg::kSetReductionSlack,
          convergence_.reference_reduction));
    return {seconds,
            set.flops,
            {{"residual_reduction", reduction},
             {"true_residual_reduction", true_reduction},
             {"iterations", set.iterations}}};
  }

 private:
  int n_;
  int threads_;
  std::vector<double> b_, x_;
  hpcg::Multigrid mg_;
  std::unique_ptr<hpcg::CgWork> work_;
  hpcg::SymmetryResult symmetry_;
  hpcg::ConvergenceResult convergence_;
};

}  // namespace

std::unique_ptr<MicroBenchmark> make_hpcg(const MicroParams& params) {
  if (params.threads < 1) throw UsageError(fmt::format("hpcg: threads={} must be at least 1", params.threads));
  hpcg::check_size(params.size);
  if (const std::int64_t available = usable_memory_bytes(); available >= 0) hpcg::check_memory(params.size, available);
  omp_set_num_threads(params.threads);
  return std::make_unique<HpcgBenchmark>(params);
}

}  // namespace dlcbench
