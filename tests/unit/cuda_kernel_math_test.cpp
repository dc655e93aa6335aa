// The per-element arithmetic of the cuda back end's kernels
// (backends/cuda/kernel_math.h), compiled here by the host compiler without
// any CUDA header, checked against the plain formulas in double and against
// finite differences; and the mapping of row-major products onto
// column-major cuBLAS calls (blas_layout.h), checked with GEMM and GEMV
// written from the BLAS definitions. The GPU runs exactly these functions, so this is the
// check they get on machines without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <vector>

#include "backends/cuda/blas_layout.h"
#include "backends/cuda/kernel_math.h"

namespace dlcbench::cuda::math {
namespace {

double sigmoid_exact(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Central difference of f at x, in float (the functions under test are float).
double derivative(const std::function<double(float)>& f, float x, float h = 1e-3f) {
  return (f(x + h) - f(x - h)) / (2.0 * static_cast<double>(h));
}

TEST(CudaKernelMath, ActivationsAndTheirDerivativesFromTheActivatedValue) {
  for (const float x : {-8.0f, -2.5f, -0.3f, 0.0f, 0.7f, 3.0f, 9.0f}) {
    EXPECT_NEAR(sigmoid(x), sigmoid_exact(x), 1e-7) << x;
    EXPECT_NEAR(sigmoid_derivative(sigmoid(x)), derivative([](float v) { return double{sigmoid(v)}; }, x), 2e-4) << x;
    EXPECT_NEAR(tanh_derivative(std::tanh(x)), derivative([](float v) { return double{std::tanh(v)}; }, x), 2e-4)
        << x;
    EXPECT_EQ(relu(x), x > 0 ? x : 0.0f);
    EXPECT_EQ(relu_backward(relu(x), 2.5f), x > 0 ? 2.5f : 0.0f) << "no gradient where the unit was off";
    EXPECT_FLOAT_EQ(sigmoid_backward(sigmoid(x), 3.0f), 3.0f * sigmoid(x) * (1.0f - sigmoid(x)));
  }
}

struct PreActivations {
  float i, f, g, o;
};

TEST(CudaKernelMath, LstmCellForwardIsPyTorchsCell) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (int trial = 0; trial < 50; ++trial) {
    const PreActivations p{value(rng), value(rng), value(rng), value(rng)};
    const float c_prev = value(rng);
    const LstmCellOutput out = lstm_cell_forward(p.i, p.f, p.g, p.o, c_prev);
    const double i = sigmoid_exact(p.i), f = sigmoid_exact(p.f), g = std::tanh(double{p.g}), o = sigmoid_exact(p.o);
    const double c = f * c_prev + i * g;
    EXPECT_NEAR(out.gates.i, i, 1e-6);
    EXPECT_NEAR(out.gates.f, f, 1e-6);
    EXPECT_NEAR(out.gates.g, g, 1e-6);
    EXPECT_NEAR(out.gates.o, o, 1e-6);
    EXPECT_NEAR(out.c, c, 1e-5);
    EXPECT_NEAR(out.tanh_c, std::tanh(c), 1e-5);
    EXPECT_NEAR(out.h, o * std::tanh(c), 1e-5);
  }
}

// Two cells in a row, as two time steps of one unit: c1 = cell(p1, c0),
// c2 = cell(p2, c1), and a loss L = a h1 + b h2 + d c2. Backward runs step 2
// (dh = b, dc = d), then step 1 (dh = a, dc = what step 2 sent back), the
// way the kernels carry dc_next; every gradient must match the finite
// difference of L.
struct TwoSteps {
  PreActivations p1, p2;
  float c0, a, b, d;

  double loss() const {
    const LstmCellOutput s1 = lstm_cell_forward(p1.i, p1.f, p1.g, p1.o, c0);
    const LstmCellOutput s2 = lstm_cell_forward(p2.i, p2.f, p2.g, p2.o, s1.c);
    return double{a} * s1.h + double{b} * s2.h + double{d} * s2.c;
  }
};

TEST(CudaKernelMath, LstmCellBackwardMatchesFiniteDifferencesThroughTwoSteps) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.5f, 1.5f);
  for (int trial = 0; trial < 30; ++trial) {
    TwoSteps s{{value(rng), value(rng), value(rng), value(rng)},
               {value(rng), value(rng), value(rng), value(rng)},
               value(rng),
               value(rng),
               value(rng),
               value(rng)};
    const LstmCellOutput s1 = lstm_cell_forward(s.p1.i, s.p1.f, s.p1.g, s.p1.o, s.c0);
    const LstmCellOutput s2 = lstm_cell_forward(s.p2.i, s.p2.f, s.p2.g, s.p2.o, s1.c);
    const LstmCellGradient g2 = lstm_cell_backward(s2.gates, s1.c, s2.tanh_c, s.b, s.d);
    const LstmCellGradient g1 = lstm_cell_backward(s1.gates, s.c0, s1.tanh_c, s.a, g2.dc_prev);

    // d L / d x for the member `x` of a copy of s, numerically.
    const auto numeric = [&](float TwoSteps::*member) {
      return derivative(
          [&](float v) {
            TwoSteps t = s;
            t.*member = v;
            return t.loss();
          },
          s.*member);
    };
    const auto numeric_pre = [&](PreActivations TwoSteps::*step, float PreActivations::*gate) {
      return derivative(
          [&](float v) {
            TwoSteps t = s;
            (t.*step).*gate = v;
            return t.loss();
          },
          (s.*step).*gate);
    };
    constexpr double kTolerance = 2e-3;
    EXPECT_NEAR(g1.dc_prev, numeric(&TwoSteps::c0), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g1.d_pre_i, numeric_pre(&TwoSteps::p1, &PreActivations::i), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g1.d_pre_f, numeric_pre(&TwoSteps::p1, &PreActivations::f), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g1.d_pre_g, numeric_pre(&TwoSteps::p1, &PreActivations::g), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g1.d_pre_o, numeric_pre(&TwoSteps::p1, &PreActivations::o), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g2.d_pre_i, numeric_pre(&TwoSteps::p2, &PreActivations::i), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g2.d_pre_f, numeric_pre(&TwoSteps::p2, &PreActivations::f), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g2.d_pre_g, numeric_pre(&TwoSteps::p2, &PreActivations::g), kTolerance) << "trial " << trial;
    EXPECT_NEAR(g2.d_pre_o, numeric_pre(&TwoSteps::p2, &PreActivations::o), kTolerance) << "trial " << trial;
  }
}

// The softmax cross-entropy of one row as the kernel assembles it around its
// two reductions (max, then the sum of exponentials).
struct RowResult {
  double loss;
  std::vector<float> gradient;
};

RowResult kernel_row(const std::vector<float>& s, std::int64_t label, std::int64_t rows) {
  float max = s[0];
  for (const float v : s) max = std::max(max, v);
  double sum = 0;
  for (const float v : s) sum += static_cast<double>(std::exp(v - max));
  const auto per_row = static_cast<float>(1.0 / static_cast<double>(rows));
  const float inv_sum_per_row = static_cast<float>(1.0 / sum) * per_row;
  RowResult r{xent_row_loss(s[static_cast<std::size_t>(label)], max, sum), {}};
  for (std::size_t k = 0; k < s.size(); ++k)
    r.gradient.push_back(xent_gradient(s[k], max, inv_sum_per_row, static_cast<std::int64_t>(k) == label, per_row));
  return r;
}

TEST(CudaKernelMath, SoftmaxCrossEntropyRowLossAndGradient) {
  std::mt19937 rng(11);
  std::normal_distribution<float> score(0.0f, 3.0f);
  constexpr std::int64_t kRows = 8;
  for (const std::size_t classes : {2u, 10u, 1000u}) {
    std::vector<float> s(classes);
    for (auto& v : s) v = score(rng) + 50.0f;  // large scores: the max shift must keep exp in range
    const auto label = static_cast<std::int64_t>(classes / 3);
    const RowResult r = kernel_row(s, label, kRows);

    double log_sum = 0;
    for (const float v : s) log_sum += std::exp(double{v} - 50.0);
    log_sum = std::log(log_sum) + 50.0;
    EXPECT_NEAR(r.loss, log_sum - s[static_cast<std::size_t>(label)], 1e-5) << classes;

    double gradient_sum = 0;
    for (std::size_t k = 0; k < classes; ++k) {
      const double softmax = std::exp(double{s[k]} - log_sum);
      const double want = (softmax - (static_cast<std::int64_t>(k) == label ? 1.0 : 0.0)) / kRows;
      EXPECT_NEAR(r.gradient[k], want, 1e-7) << classes << " classes, score " << k;
      gradient_sum += r.gradient[k];
    }
    EXPECT_NEAR(gradient_sum, 0.0, 1e-6) << "softmax sums to one";

    // The gradient is that of the mean loss over kRows rows (this row's share).
    for (const std::size_t k : {std::size_t{0}, static_cast<std::size_t>(label), classes - 1}) {
      const double numeric = derivative(
          [&](float v) {
            std::vector<float> t = s;
            t[k] = v;
            return kernel_row(t, label, kRows).loss / kRows;
          },
          s[k], 1e-2f);
      EXPECT_NEAR(r.gradient[k], numeric, 2e-4) << classes << " classes, score " << k;
    }
  }
}

TEST(CudaKernelMath, SgdMomentumIsPyTorchs) {
  // torch.optim.SGD(lr, momentum): buf = g at the first step, then
  // buf = momentum buf + g; p -= lr buf.
  const float lr = 0.1f, mu = 0.9f;
  const float grads[] = {1.0f, -2.0f, 0.5f};
  float p = 3.0f, v = 123.0f;  // the buffer's old contents must not matter at the first step
  double want_p = 3.0, want_v = 0.0;
  for (int step = 0; step < 3; ++step) {
    sgd_update(p, v, grads[step], lr, mu, step == 0);
    want_v = step == 0 ? grads[step] : mu * want_v + grads[step];
    want_p -= lr * want_v;
    EXPECT_NEAR(v, want_v, 1e-6) << "step " << step;
    EXPECT_NEAR(p, want_p, 1e-6) << "step " << step;
  }
  // Without momentum: p -= lr g, the buffer untouched.
  float q = 1.0f, unused = 7.0f;
  sgd_update(q, unused, 2.0f, 0.5f, 0.0f, true);
  sgd_update(q, unused, 2.0f, 0.5f, 0.0f, false);
  EXPECT_FLOAT_EQ(q, -1.0f);
  EXPECT_EQ(unused, 7.0f);
}

TEST(CudaKernelMath, ClipFactorIsClipGradNormsCoefficient) {
  EXPECT_DOUBLE_EQ(clip_factor(100.0, 5.0), 5.0 / (10.0 + 1e-6)) << "norm 10 clipped to 5";
  EXPECT_DOUBLE_EQ(clip_factor(1.0, 5.0), 1.0) << "norm 1 left alone";
  EXPECT_DOUBLE_EQ(clip_factor(0.0, 5.0), 1.0) << "zero gradients left alone";
  // The clipped gradients have the norm asked for (up to the 1e-6).
  const double squares = 3.0 * 3.0 + 4.0 * 4.0;
  const double factor = clip_factor(squares, 1.0);
  EXPECT_NEAR(std::sqrt(squares) * factor, 1.0, 1e-6);
}

// The option-A shortcut against x[:, :, ::stride, ::stride] padded with zero
// channels at the end, written the slow way: walk the input, keep the
// positions the slice keeps.
TEST(CudaKernelMath, ShortcutSourceIsTheStridedSliceWithChannelsPaddedAtTheEnd) {
  struct Case {
    std::int64_t batch;
    ImageDims in, out;
    std::int64_t stride;
  };
  for (const Case& k : {Case{2, {4, 8, 8}, {8, 4, 4}, 2}, Case{3, {4, 6, 6}, {4, 6, 6}, 1},
                        Case{1, {3, 5, 5}, {6, 3, 3}, 2}}) {
    const std::int64_t out_count = k.batch * k.out.channels * k.out.height * k.out.width;
    std::vector<std::int64_t> want(static_cast<std::size_t>(out_count), -1);
    for (std::int64_t n = 0; n < k.batch; ++n)
      for (std::int64_t c = 0; c < k.in.channels; ++c)
        for (std::int64_t h = 0; h < k.in.height; h += k.stride)
          for (std::int64_t w = 0; w < k.in.width; w += k.stride) {
            const std::int64_t from = ((n * k.in.channels + c) * k.in.height + h) * k.in.width + w;
            const std::int64_t to =
                ((n * k.out.channels + c) * k.out.height + h / k.stride) * k.out.width + w / k.stride;
            want[static_cast<std::size_t>(to)] = from;
          }
    std::set<std::int64_t> sources;
    for (std::int64_t o = 0; o < out_count; ++o) {
      const std::int64_t got = shortcut_source(o, k.out, k.in, k.stride);
      EXPECT_EQ(got, want[static_cast<std::size_t>(o)]) << "output " << o;
      if (got >= 0) {
        EXPECT_TRUE(sources.insert(got).second) << "two outputs read input " << got;
      }
    }
    EXPECT_EQ(static_cast<std::int64_t>(sources.size()),
              k.batch * k.in.channels * k.out.height * k.out.width)
        << "every output of a real channel reads a distinct input";
  }
}

// Column-major SGEMM as BLAS defines it: C = alpha op(A) op(B) + beta C with
// element (i, j) of a matrix at [i + j * ld].
void blas_sgemm(bool transa, bool transb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                std::int64_t ldc) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const float op_a = transa ? a[l + i * lda] : a[i + l * lda];
        const float op_b = transb ? b[j + l * ldb] : b[l + j * ldb];
        sum += double{op_a} * op_b;
      }
      c[i + j * ldc] = static_cast<float>(alpha * sum + beta * c[i + j * ldc]);
    }
}

TEST(CudaBlasLayout, RowMajorProductsAsColumnMajorGemm) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const std::int64_t m = 5, n = 3, k = 4;  // all different, so a swapped dimension shows
  for (const bool trans_a : {false, true})
    for (const bool trans_b : {false, true}) {
      // Row-major A stored [M, K] or [K, M], B stored [K, N] or [N, K].
      std::vector<float> a(m * k), b(k * n), c(m * n), want(m * n);
      for (auto& v : a) v = value(rng);
      for (auto& v : b) v = value(rng);
      for (auto& v : c) v = value(rng);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t l = 0; l < k; ++l) {
            const float op_a = trans_a ? a[l * m + i] : a[i * k + l];
            const float op_b = trans_b ? b[j * k + l] : b[l * n + j];
            sum += double{op_a} * op_b;
          }
          want[i * n + j] = static_cast<float>(2.0 * sum + 0.5 * c[i * n + j]);
        }
      const ColumnMajorGemm g = row_major_gemm(trans_a, trans_b, m, n, k);
      blas_sgemm(g.transa, g.transb, g.m, g.n, g.k, 2.0f, b.data(), g.lda, a.data(), g.ldb, 0.5f, c.data(), g.ldc);
      for (std::size_t i = 0; i < c.size(); ++i)
        EXPECT_NEAR(c[i], want[i], 1e-5) << "trans_a " << trans_a << ", trans_b " << trans_b << ", element " << i;
    }
}

TEST(CudaBlasLayout, ColumnSumsAsColumnMajorGemv) {
  const std::int64_t rows = 4, columns = 3;
  std::vector<float> x(rows * columns);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);  // row r: 3r, 3r+1, 3r+2
  const std::vector<float> ones(rows, 1.0f);
  const ColumnMajorGemv g = row_major_column_sums(rows, columns);
  // y = A ones, A (i, j) at [i + j * lda]: BLAS's SGEMV without transpose.
  std::vector<float> sums(static_cast<std::size_t>(g.m), 0.0f);
  for (std::int64_t i = 0; i < g.m; ++i)
    for (std::int64_t j = 0; j < g.n; ++j) sums[i] += x[i + j * g.lda] * ones[j];
  EXPECT_EQ(sums, (std::vector<float>{0 + 3 + 6 + 9, 1 + 4 + 7 + 10, 2 + 5 + 8 + 11}));
}

}  // namespace
}  // namespace dlcbench::cuda::math
