// STREAM as a dlcbench workload: counted bytes, the per-pass check, the
// default array size from the last-level cache, and the memory check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.h"
#include "test_files.h"
#include "workloads/micro/stream.h"

#include "core/memory.h"

namespace dlcbench {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_text;

const StreamKernel kAllKernels[] = {StreamKernel::copy, StreamKernel::scale, StreamKernel::add,
                                    StreamKernel::triad};

MicroParams stream_params(const std::string& kernel, std::int64_t n, int threads = 2) {
  MicroParams p;
  p.variant = kernel;
  p.size = n;
  p.threads = threads;
  return p;
}

TEST(StreamTest, CountsBytesAsStreamDoes) {
  const std::int64_t n = 1000;
  EXPECT_EQ(stream_counted_bytes(StreamKernel::copy, n), 2 * 8 * n);
  EXPECT_EQ(stream_counted_bytes(StreamKernel::scale, n), 2 * 8 * n);
  EXPECT_EQ(stream_counted_bytes(StreamKernel::add, n), 3 * 8 * n);
  EXPECT_EQ(stream_counted_bytes(StreamKernel::triad, n), 3 * 8 * n);
}

TEST(StreamTest, EachKernelPassesItsCheckOnASmallArray) {
  const std::int64_t n = 100000;
  for (StreamKernel kernel : kAllKernels) {
    const std::string name = stream_kernel_name(kernel);
    SCOPED_TRACE(name);
    StreamBenchmark bench(stream_params(name, n));
    for (int pass = 0; pass < 3; ++pass) {
      MicroResult r;
      ASSERT_NO_THROW(r = bench.run());
      EXPECT_GT(r.seconds, 0.0);
      EXPECT_EQ(r.work, static_cast<double>(stream_counted_bytes(kernel, n)));
    }
    // The arrays hold the values the repeated kernel leaves, everywhere.
    const StreamValues v = stream_expected_values(kernel);
    for (std::int64_t j : {std::int64_t{0}, n / 2, n - 1}) {
      EXPECT_EQ(bench.array_for_test('a')[j], v.a);
      EXPECT_EQ(bench.array_for_test('b')[j], v.b);
      EXPECT_EQ(bench.array_for_test('c')[j], v.c);
    }
    const auto d = bench.describe();
    EXPECT_EQ(d["benchmark"], "stream");
    EXPECT_EQ(d["kernel"], name);
    EXPECT_EQ(d["elements"], n);
    EXPECT_EQ(d["array_bytes"], 8 * n);
    EXPECT_EQ(d["threads"], 2);
    EXPECT_EQ(d["counted_bytes_per_pass"], stream_counted_bytes(kernel, n));
    EXPECT_TRUE(d.contains("llc_bytes"));
  }
}

TEST(StreamTest, ExpectedValuesFollowStreamsInitialisation) {
  // a = 1 then 2a, b = 2, c = 0; q = 3.
  EXPECT_EQ(stream_expected_values(StreamKernel::copy).c, 2.0);
  EXPECT_EQ(stream_expected_values(StreamKernel::scale).b, 3.0);
  EXPECT_EQ(stream_expected_values(StreamKernel::add).c, 4.0);
  EXPECT_EQ(stream_expected_values(StreamKernel::triad).a, 5.0);
}

TEST(StreamTest, MakeStreamWorksThroughTheInterface) {
  auto bench = make_stream(stream_params("triad", 20000, 1));
  EXPECT_EQ(bench->run().work, 3.0 * 8 * 20000);
}

TEST(StreamTest, CorruptedElementBetweenPassesFailsTheCheck) {
  // Corrupt an array the kernel reads but does not write, so the pass cannot
  // repair it (the wrong value may also show in the array it writes first).
  const std::pair<const char*, char> cases[] = {{"copy", 'a'}, {"scale", 'c'}, {"add", 'b'}, {"triad", 'c'}};
  for (const auto& [kernel, input] : cases) {
    SCOPED_TRACE(kernel);
    StreamBenchmark bench(stream_params(kernel, 100000));
    ASSERT_NO_THROW(bench.run());
    bench.array_for_test(input)[4321] += 1e-6;
    const std::string message = error_of<ValidationError>([&] { bench.run(); });
    EXPECT_NE(message.find("[4321]"), std::string::npos) << message;
    EXPECT_NE(message.find(kernel), std::string::npos) << message;
  }
}

TEST(StreamTest, CheckToleratesStreamsEpsilonOnly) {
  std::vector<double> x(1000, 8.0);
  EXPECT_EQ(stream_first_mismatch(x.data(), 1000, 8.0, 2), -1);
  x[700] = 8.0 * (1 + 1e-15);  // within 1e-13 relative
  EXPECT_EQ(stream_first_mismatch(x.data(), 1000, 8.0, 2), -1);
  x[900] = 8.0 * (1 + 1e-12);
  x[950] = 9.0;
  EXPECT_EQ(stream_first_mismatch(x.data(), 1000, 8.0, 2), 900);
  x[10] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(stream_first_mismatch(x.data(), 1000, 8.0, 2), 10);
  // Expected zero: absolute tolerance.
  std::vector<double> z(100, 0.0);
  EXPECT_EQ(stream_first_mismatch(z.data(), 100, 0.0, 2), -1);
  z[5] = 1e-9;
  EXPECT_EQ(stream_first_mismatch(z.data(), 100, 0.0, 2), 5);
}

TEST(StreamTest, UnknownKernelIsRejectedWithTheFour) {
  const std::string message = error_of<UsageError>([] { make_stream(stream_params("triads", 1000)); });
  for (const char* k : {"triads", "copy", "scale", "add", "triad"}) {
    EXPECT_NE(message.find(k), std::string::npos) << message;
  }
}

// A fake /sys/devices/system/cpu: `cpus` CPUs, each with L1d, L1i, L2 and an
// L3 of `l3` shared by the CPUs of its group of `per_l3`.
void write_fake_cpus(const std::filesystem::path& root, int cpus, const std::string& l3, int per_l3) {
  for (int cpu = 0; cpu < cpus; ++cpu) {
    const auto cache = root / ("cpu" + std::to_string(cpu)) / "cache";
    auto index = [&](int i, const std::string& level, const std::string& type, const std::string& size,
                     const std::string& shared) {
      const auto dir = cache / ("index" + std::to_string(i));
      write_text(dir / "level", level + "\n");
      write_text(dir / "type", type + "\n");
      write_text(dir / "size", size + "\n");
      write_text(dir / "shared_cpu_list", shared + "\n");
    };
    index(0, "1", "Data", "48K", std::to_string(cpu));
    index(1, "1", "Instruction", "32K", std::to_string(cpu));
    index(2, "2", "Unified", "2048K", std::to_string(cpu));
    const int first = cpu / per_l3 * per_l3;
    index(3, "3", "Unified", l3, std::to_string(first) + "-" + std::to_string(first + per_l3 - 1));
  }
  // Neighbours that are not CPUs.
  write_text(root / "cpufreq" / "boost", "1\n");
  write_text(root / "online", "0-" + std::to_string(cpus - 1) + "\n");
}

TEST(StreamTest, DefaultElementsAreFourTimesAllLastLevelCaches) {
  TempDir tmp;
  write_fake_cpus(tmp.path(), 4, "32768K", 2);  // two 32 MiB L3 instances
  const CacheInfo cache = read_cache_info(tmp.path());
  EXPECT_EQ(cache.level, 3);
  EXPECT_EQ(cache.instances, 2);
  EXPECT_EQ(cache.instance_bytes, 32LL << 20);
  EXPECT_EQ(cache.total_bytes, 64LL << 20);
  EXPECT_EQ(stream_default_elements(tmp.path()), 4 * (64LL << 20) / 8);
}

TEST(StreamTest, DefaultElementsNeverBelowStreamsTenMillion) {
  TempDir tmp;
  write_fake_cpus(tmp.path(), 2, "2M", 2);
  EXPECT_EQ(read_cache_info(tmp.path()).total_bytes, 2LL << 20);
  EXPECT_EQ(stream_default_elements(tmp.path()), 10'000'000);
  // Nothing readable at all: STREAM's default too.
  EXPECT_EQ(stream_default_elements(tmp.path() / "missing"), 10'000'000);
  EXPECT_EQ(read_cache_info(tmp.path() / "missing").level, 0);
}

TEST(StreamTest, ThisMachinesCacheIsReadable) {
  const CacheInfo cache = read_cache_info();
  if (cache.level == 0) GTEST_SKIP() << "no cache information under /sys/devices/system/cpu";
  EXPECT_GT(cache.total_bytes, 0);
  EXPECT_GE(stream_default_elements(), 10'000'000);
}

TEST(StreamTest, UsableMemoryIsMemAvailableCappedByTheCgroupLimit) {
  TempDir tmp;
  write_text(tmp / "proc/meminfo", "MemTotal:  4000 kB\nMemFree:  2000 kB\nMemAvailable:    3000 kB\n");
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 3000 * 1024);
  write_text(tmp / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1: none
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 3000 * 1024);
  write_text(tmp / "sys/fs/cgroup/memory.max", "max\n");  // v2: none
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 3000 * 1024);
  write_text(tmp / "sys/fs/cgroup/memory.max", "1048576\n");
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 1048576);
  EXPECT_EQ(usable_memory_bytes(tmp.path() / "missing"), -1);
}

TEST(StreamTest, UsableMemoryReadsTheProcesssOwnCgroup) {
  TempDir tmp;
  write_text(tmp / "proc/meminfo", "MemAvailable:    3000 kB\n");
  write_text(tmp / "proc/self/cgroup", "5:cpu,cpuacct:/a\n4:memory:/docker/abc\n0::/user.slice/job\n");
  write_text(tmp / "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "2048000\n");
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 2048000);
  write_text(tmp / "sys/fs/cgroup/user.slice/job/memory.max", "1024000\n");
  EXPECT_EQ(usable_memory_bytes(tmp.path()), 1024000);
}

TEST(StreamTest, ImpossibleSizeIsRejectedBeforeAllocating) {
  // 24 PB: no machine has it; the check must come before any allocation.
  const std::string message = error_of<UsageError>([] { make_stream(stream_params("copy", 1'000'000'000'000'000)); });
  EXPECT_NE(message.find("24000000000000000 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("available"), std::string::npos) << message;
  EXPECT_NE(message.find("smaller n="), std::string::npos) << message;
  // So large that the byte count overflows.
  const std::string overflow = error_of<UsageError>(
      [] { make_stream(stream_params("add", std::numeric_limits<std::int64_t>::max() / 2)); });
  EXPECT_NE(overflow.find("smaller n="), std::string::npos) << overflow;
}

TEST(StreamTest, NonsenseSizesAndThreadsAreRejected) {
  EXPECT_NE(error_of<UsageError>([] { make_stream(stream_params("copy", 0)); }).find("positive"), std::string::npos);
  EXPECT_NE(error_of<UsageError>([] { make_stream(stream_params("copy", 1000, 0)); }).find("thread"),
            std::string::npos);
}

}  // namespace
}  // namespace dlcbench
