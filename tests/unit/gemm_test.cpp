#include "workloads/micro/gemm.h"

#include <cblas.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

MicroParams gemm_params(const std::string& variant, std::int64_t n) {
  MicroParams p;
  p.variant = variant;
  p.size = n;
  p.threads = 1;
  p.seed = 7;
  return p;
}

TEST(GemmFlops, TwoNCubed) {
  EXPECT_EQ(gemm_flops(1), 2.0);
  EXPECT_EQ(gemm_flops(64), 2.0 * 64 * 64 * 64);
  EXPECT_EQ(gemm_flops(4096), 137438953472.0);  // 2 * 2^36
}

struct GemmCase {
  std::string variant;
  std::int64_t n;
};

class GemmRun : public ::testing::TestWithParam<GemmCase> {};

// A real multiply through the BLAS passes its check, twice (the second on a
// C that already holds the right answer before it is poisoned), and reports
// 2 n^3 flops.
TEST_P(GemmRun, PassesItsCheckAndCountsTwoNCubed) {
  const auto& [variant, n] = GetParam();
  auto bench = make_gemm(gemm_params(variant, n));
  const auto d = bench->describe();
  EXPECT_EQ(d["benchmark"], "gemm");
  EXPECT_EQ(d["routine"], variant == "sgemm" ? "cblas_sgemm" : "cblas_dgemm");
  EXPECT_EQ(d["n"], n);
  EXPECT_EQ(d["bytes"].get<std::int64_t>(), 3 * n * n * (variant == "sgemm" ? 4 : 8));
  EXPECT_EQ(d["threads"], 1);
  EXPECT_FALSE(d["blas_core"].get<std::string>().empty());
  EXPECT_EQ(d["check"]["entries"], kGemmCheckEntries);
  for (int i = 0; i < 2; ++i) {
    const auto r = bench->run();
    EXPECT_GT(r.seconds, 0);
    EXPECT_EQ(r.work, gemm_flops(n));
    EXPECT_EQ(r.detail["checked_entries"], kGemmCheckEntries);
    EXPECT_LE(r.detail["max_error_ratio"].get<double>(), 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Small, GemmRun,
                         ::testing::Values(GemmCase{"sgemm", 64}, GemmCase{"sgemm", 100}, GemmCase{"dgemm", 64},
                                           GemmCase{"dgemm", 100}),
                         [](const auto& test) { return test.param.variant + std::to_string(test.param.n); });

// The check itself: passes on the BLAS's product, fails naming the entry when
// one sampled entry (a corner, always sampled) is off by far less than its
// size but far more than rounding allows.
TEST(GemmCheck, CatchesOneWrongEntry) {
  const int n = 64;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>((i * 37 % 101) - 50) / 50.0f;
    b[i] = static_cast<float>((i * 53 % 97) - 48) / 48.0f;
  }
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  const auto ok = check_gemm_sample(std::span<const float>(a), std::span<const float>(b), std::span<const float>(c), n, 1);
  EXPECT_EQ(ok.entries, kGemmCheckEntries);
  EXPECT_LE(ok.max_error_ratio, 1.0);

  c[(n - 1) + (n - 1) * n] += 1e-3f;  // |c| ~ 1, bound ~ 64 * 1.2e-7 * 20 ~ 1.5e-4
  const auto message = testing::error_of<ValidationError>([&] {
    check_gemm_sample(std::span<const float>(a), std::span<const float>(b), std::span<const float>(c), n, 1);
  });
  EXPECT_THAT(message, HasSubstr("C(63, 63)"));
  EXPECT_THAT(message, HasSubstr("FLT_EPSILON"));
}

// run() checks what the kernel produced: a kernel that drops one term of every
// dot product, and one that writes nothing on its second call (leaving the
// first call's right answer, were C not poisoned), both fail the run.
TEST(GemmCheck, RunRejectsBrokenKernels) {
  GemmKernels short_k;
  short_k.dgemm = [](const double* a, const double* b, double* c, std::int64_t n) {
    const int m = static_cast<int>(n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m - 1, 1.0, a, m, b, m, 0.0, c, m);
  };
  auto dropped = make_gemm(gemm_params("dgemm", 64), short_k);
  const auto message = testing::error_of<ValidationError>([&] { dropped->run(); });
  EXPECT_THAT(message, HasSubstr("gemm/dgemm n=64: result check failed at C("));
  EXPECT_THAT(message, HasSubstr("BLAS core"));

  int calls = 0;
  GemmKernels lazy;
  lazy.sgemm = [&calls](const float* a, const float* b, float* c, std::int64_t n) {
    if (calls++ > 0) return;
    const int m = static_cast<int>(n);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a, m, b, m, 0.0f, c, m);
  };
  auto stale = make_gemm(gemm_params("sgemm", 64), lazy);
  EXPECT_NO_THROW(stale->run());
  EXPECT_THAT(testing::error_of<ValidationError>([&] { stale->run(); }), HasSubstr("result check failed"));
}

TEST(GemmUsage, RejectsUnknownVariant) {
  const auto message = testing::error_of<UsageError>([] { make_gemm(gemm_params("hgemm", 64)); });
  EXPECT_EQ(message, "gemm: unknown variant 'hgemm'; valid variants: sgemm, dgemm");
}

// 10^6 would need 12 TB of float matrices: refused before anything is
// allocated (an allocation would throw std::bad_alloc, not UsageError).
TEST(GemmUsage, RejectsMatricesBeyondMemory) {
  const auto message = testing::error_of<UsageError>([] { make_gemm(gemm_params("sgemm", 1'000'000)); });
  EXPECT_THAT(message, HasSubstr("gemm/sgemm with n=1000000 needs 10.91 TiB"));
  EXPECT_THAT(message, HasSubstr("3 n^2 floats"));
  EXPECT_THAT(message, HasSubstr("of memory is available (MemAvailable"));
  EXPECT_THAT(message, HasSubstr("choose a smaller n (at most n="));
}

TEST(GemmUsage, RejectsBadOrderAndThreads) {
  EXPECT_THAT(testing::error_of<UsageError>([] { make_gemm(gemm_params("dgemm", 0)); }),
              HasSubstr("gemm/dgemm: n=0 is not a usable matrix order"));
  auto p = gemm_params("dgemm", 64);
  p.threads = 0;
  EXPECT_THAT(testing::error_of<UsageError>([&] { make_gemm(p); }), HasSubstr("threads=0"));
}

}  // namespace
}  // namespace dlcbench
