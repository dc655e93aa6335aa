#include "core/blas_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

CpuVectorIsa cpu_from(const std::string& vendor, const std::string& flags) {
  testing::TempDir dir;
  testing::write_text(dir / "cpuinfo", "processor\t: 0\nvendor_id\t: " + vendor +
                                           "\ncpu MHz\t\t: 2445.404\nflags\t\t: " + flags +
                                           "\n\nprocessor\t: 1\nflags\t\t: sse\n");
  return read_cpu_isa(dir / "cpuinfo");
}

const std::string kZen3 = "fpu sse sse2 avx avx2 fma bmi2";
const std::string kSkylakeX = "fpu sse sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl";

TEST(BlasCheck, ReadsTheFirstCpusVectorFlagsVendorAndClock) {
  const auto zen = cpu_from("AuthenticAMD", kZen3);
  EXPECT_EQ(zen.best(), "AVX2");
  EXPECT_EQ(zen.vendor, "AuthenticAMD");
  EXPECT_DOUBLE_EQ(zen.mhz, 2445.404);
  EXPECT_EQ(cpu_from("GenuineIntel", kSkylakeX).best(), "AVX-512");
  EXPECT_EQ(cpu_from("GenuineIntel", "fpu sse avx").best(), "AVX");
  // The hypervisor flag, of the first CPU's flags line only.
  EXPECT_TRUE(cpu_from("AuthenticAMD", kZen3 + " hypervisor").hypervisor);
  EXPECT_FALSE(cpu_from("AuthenticAMD", kZen3).hypervisor);
  testing::TempDir dir;
  testing::write_text(dir / "cpuinfo", "processor\t: 0\nflags\t\t: fpu\nbugs\t\t: hypervisor\n");
  EXPECT_FALSE(read_cpu_isa(dir / "cpuinfo").hypervisor);  // the word outside the flags line does not count
  EXPECT_EQ(sp_flops_per_cycle(zen), 32);
}

TEST(BlasCheck, TheRightKernelPasses) {
  auto v = check_blas_kernel("Zen", cpu_from("AuthenticAMD", kZen3), "");
  EXPECT_TRUE(v.ok) << v.message;
  EXPECT_THAT(v.message, HasSubstr("uses AVX2, the widest this CPU has"));
  EXPECT_TRUE(check_blas_kernel("SkylakeX", cpu_from("GenuineIntel", kSkylakeX), "").ok);
}

TEST(BlasCheck, AnOlderKernelOnANewerCpuSaysWhatToSet) {
  // The case DESIGN.md warns about: OpenBLAS 0.3.21 does not know the Xeon
  // and falls back to an AVX2 (or older) kernel.
  auto v = check_blas_kernel("Haswell", cpu_from("GenuineIntel", kSkylakeX), "");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.suggested_core, "SkylakeX");
  EXPECT_THAT(v.message, HasSubstr("set OPENBLAS_CORETYPE=SkylakeX"));
  v = check_blas_kernel("Prescott", cpu_from("AuthenticAMD", kZen3), "");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.suggested_core, "Zen");
}

TEST(BlasCheck, ForcingAKernelTheCpuCannotRunIsCaughtBeforeItKillsTheRun) {
  auto v = check_blas_kernel("Zen", cpu_from("AuthenticAMD", kZen3), "SkylakeX");
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(v.would_crash);
  EXPECT_THAT(v.message, HasSubstr("SIGILL"));
  EXPECT_THAT(v.message, HasSubstr("OPENBLAS_CORETYPE=Zen"));
  // Forcing an older one is allowed (it is slower, and the kernel check says so).
  EXPECT_TRUE(check_blas_kernel("Haswell", cpu_from("AuthenticAMD", kZen3), "Haswell").ok);
}

TEST(BlasCheck, AnUnknownKernelIsNotCalledWrong) {
  auto v = check_blas_kernel("Neoverse", cpu_from("ARM", ""), "");
  EXPECT_TRUE(v.ok);
  EXPECT_THAT(v.message, HasSubstr("not in dlcbench's table"));
}

}  // namespace
}  // namespace dlcbench
