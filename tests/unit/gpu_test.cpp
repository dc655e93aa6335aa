// The GPU pieces that run without a GPU: finding the driver's files and
// device nodes, choosing how a container gets the GPU, the peak estimate,
// GPU cases in a plan, the image's extra files, and the CUDA plugin loading
// and saying why there is no GPU. On a machine with a GPU the plugin's
// micro-benchmarks run for real (elsewhere they skip, saying "no GPU").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/fingerprint.h"
#include "gpu/gpu_loader.h"
#include "backends/cuda/gpu_peak.h"
#include "orchestrator/plan.h"
#include "runtimes/gpu_access.h"
#include "runtimes/image_builder.h"
#include "workloads/micro/micro_workloads.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::error_of;

MicroParams params(const std::string& variant, std::int64_t size) {
  MicroParams p;
  p.variant = variant;
  p.size = size;
  p.seed = 3;
  return p;
}

TEST(GpuAccess, DriverLibrariesAreCudaAndNvidiaVersionedFilesOnly) {
  EXPECT_THAT(driver_library_names({"libcuda.so", "libcuda.so.1", "libcuda.so.580.159.03", "libnvidia-ml.so.1",
                                    "libnvidia-ptxjitcompiler.so.580.159.03", "libcudart.so.13", "libcudnn.so.9",
                                    "libc.so.6", "libnvidia-ml.so", "libcudadebugger.so.1", "nvidia-smi"}),
              ElementsAre("libcuda.so.1", "libcuda.so.580.159.03", "libcudadebugger.so.1", "libnvidia-ml.so.1",
                          "libnvidia-ptxjitcompiler.so.580.159.03"));
}

// A container given the driver by bind mounts maps libcuda.so.1 (the mount
// point) where the host maps libcuda.so.580.95.05 (the file that name links
// to): the same library, so the same fingerprint. Other libraries keep
// their whole name, and a driver file of another size still differs.
TEST(GpuAccess, DriverLibrariesBoundUnderTheirLinkNamesFingerprintAsTheHostsFiles) {
  testing::TempDir dir;
  const std::vector<std::uint8_t> driver(4096, 7), other(1000, 1);
  testing::write_bytes(dir.path() / "libcuda.so.580.95.05", driver);
  testing::write_bytes(dir.path() / "libcuda.so.1", driver);
  testing::write_bytes(dir.path() / "libnvidia-ptxjitcompiler.so.1", std::vector<std::uint8_t>(2048, 3));
  testing::write_bytes(dir.path() / "libfoo.so.1", other);
  testing::write_bytes(dir.path() / "libfoo.so.2", other);
  std::filesystem::create_directories(dir.path() / "big");
  testing::write_bytes(dir.path() / "big" / "libcuda.so.1", std::vector<std::uint8_t>(8192, 7));
  auto digest = [&](const std::vector<std::string>& files) {
    std::string maps;
    for (const auto& f : files) maps += "7f00-7f01 r-xp 00000000 08:01 1234   " + (dir.path() / f).string() + "\n";
    testing::write_text(dir.path() / "maps", maps);
    return loaded_libraries(dir.path() / "maps");
  };
  const auto host = digest({"libcuda.so.580.95.05", "libfoo.so.1"});
  EXPECT_EQ(host["digest"], digest({"libcuda.so.1", "libfoo.so.1"})["digest"]);
  EXPECT_THAT(host["files"], ElementsAre("libcuda.so 4096", "libfoo.so.1 1000"));
  EXPECT_NE(host["digest"], digest({"libcuda.so.580.95.05", "libfoo.so.2"})["digest"]);
  EXPECT_NE(host["digest"], digest({"big/libcuda.so.1", "libfoo.so.1"})["digest"]);
  EXPECT_THAT(digest({"libnvidia-ptxjitcompiler.so.1"})["files"], ElementsAre("libnvidia-ptxjitcompiler.so 2048"));
}

// The same with the kernel's own bookkeeping: a library opened through its
// link (the host) and the file bind-mounted at the link's name in a mount
// namespace of its own (a container given the driver by dlcbench) show
// different names in /proc/self/maps and the same fingerprint entry.
TEST(GpuAccess, ABindMountedDriverLibraryFingerprintsAsTheFileItsLinkNames) {
  if (geteuid() != 0) GTEST_SKIP() << "bind mounts need root";
  testing::TempDir dir;
  // A real library to map, standing in for the driver under its file names.
  void* zlib = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);
  struct link_map* map = nullptr;
  ASSERT_TRUE(zlib && dlinfo(zlib, RTLD_DI_LINKMAP, &map) == 0 && map->l_name) << dlerror();
  const auto file = dir.path() / "libcuda.so.580.95.05";
  std::filesystem::copy_file(map->l_name, file);
  std::filesystem::create_symlink(file.filename(), dir.path() / "libcuda.so.1");
  std::filesystem::create_directories(dir.path() / "container");
  testing::write_text(dir.path() / "container" / "libcuda.so.1", "");

  // In a child: map the library the given way, write what maps and the
  // fingerprint say about it.
  auto mapped_in_child = [&](const std::string& how) {
    const auto out = dir.path() / (how + ".json");
    const pid_t pid = fork();
    if (pid == 0) {
      std::filesystem::path open = dir.path() / "libcuda.so.1";
      if (how == "container") {
        open = dir.path() / "container" / "libcuda.so.1";
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount(file.c_str(), open.c_str(), nullptr, MS_BIND | MS_RDONLY, nullptr) != 0)
          _exit(2);
      }
      if (!dlopen(open.c_str(), RTLD_NOW | RTLD_LOCAL)) _exit(3);
      std::ifstream maps("/proc/self/maps");
      std::string line, mapped;
      while (std::getline(maps, line))
        if (line.find(dir.path().string()) != std::string::npos) mapped = line.substr(line.rfind('/') + 1);
      nlohmann::json j = {{"mapped", mapped}, {"files", nlohmann::json::array()}};
      const auto libraries = loaded_libraries();
      for (const auto& f : libraries["files"])
        if (f.get<std::string>().rfind("libcuda", 0) == 0) j["files"].push_back(f);
      std::ofstream(out) << j.dump();
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::ifstream in(out);
    return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                     nlohmann::json::parse(in, nullptr, false)};
  };
  const auto [host_status, host] = mapped_in_child("host");
  const auto [container_status, container] = mapped_in_child("container");
  ASSERT_EQ(host_status, 0);
  if (container_status == 2) GTEST_SKIP() << "no mount namespace of its own can be made here";
  ASSERT_EQ(container_status, 0);
  ASSERT_FALSE(host.is_discarded() || container.is_discarded());
  EXPECT_EQ(host["mapped"], "libcuda.so.580.95.05");
  EXPECT_EQ(container["mapped"], "libcuda.so.1");
  const std::string entry = fmt::format("libcuda.so {}", std::filesystem::file_size(file));
  EXPECT_THAT(host["files"], ElementsAre(entry));
  EXPECT_EQ(container["files"], host["files"]);
}

// CUDA's minor-version compatibility: any driver of the runtime's major
// version runs it; an older major is named with the fix.
TEST(GpuDriver, AnOlderMajorVersionIsRefusedWithTheFixAndNewerMinorsRun) {
  EXPECT_THAT(driver_version_problem(12080, 13000),
              AllOf(HasSubstr("supports CUDA 12.8 and this build needs CUDA 13.0"), HasSubstr("update the driver")));
  EXPECT_EQ(driver_version_problem(13000, 13010), "");
  EXPECT_EQ(driver_version_problem(13020, 13000), "");
  EXPECT_EQ(driver_version_problem(0, 13000), "");
}

TEST(GpuAccess, DeviceNodesAreTheOnesCudaOpens) {
  for (const char* yes : {"nvidia0", "nvidia7", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"})
    EXPECT_TRUE(is_gpu_device_node(yes)) << yes;
  for (const char* no : {"nvidia-caps", "nvidia", "nvme0", "nvidiactl2", "null"}) EXPECT_FALSE(is_gpu_device_node(no)) << no;
}

TEST(GpuAccess, MethodFollowsTheOptionAndTheToolkit) {
  EXPECT_EQ(gpu_method("docker", "auto", false), "none");  // no GPU case planned
  EXPECT_EQ(gpu_method("docker", "none", true), "none");
  EXPECT_EQ(gpu_method("podman", "nodes", true), "nodes");
  EXPECT_EQ(gpu_method("runc", "auto", true), "nodes");   // an OCI runtime never has the toolkit's hook here
  EXPECT_EQ(gpu_method("docker", "auto", true), docker_gpu_toolkit_present() ? "toolkit" : "nodes");
  if (!docker_gpu_toolkit_present()) {
    EXPECT_THAT(error_of<EnvironmentUnavailable>([] { gpu_method("docker", "all", true); }),
                HasSubstr("docker:gpus=all needs the NVIDIA container toolkit"));
  }
}

TEST(GpuAccess, WithoutAGpuThePassthroughSaysWhy) {
  if (gpu_unavailable_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  const std::string why = error_of<EnvironmentUnavailable>([] { host_gpu_passthrough(); });
  EXPECT_THAT(why, AnyOf(HasSubstr("/dev/nvidiactl is missing"), HasSubstr("libcuda.so.1 is not found")));
}

TEST(GpuPeak, MatchesNvidiasFiguresForTheKnownArchitectures) {
  // H100/H200 SXM: 132 SMs; NVIDIA quotes 989 TFLOP/s dense BF16 at 1830 MHz
  // and 67 TFLOP/s FP32 at 1980 MHz.
  EXPECT_NEAR(*estimated_peak_flops(9, 0, 132, 1.83e9, "bf16") / 1e12, 989, 1);
  EXPECT_NEAR(*estimated_peak_flops(9, 0, 132, 1.98e9, "fp32") / 1e12, 66.9, 0.1);
  EXPECT_NEAR(*estimated_peak_flops(9, 0, 132, 1.83e9, "tf32") / 1e12, 494.7, 1);
  // A100: 108 SMs at 1410 MHz: 312 BF16, 156 TF32, 19.5 FP32.
  EXPECT_NEAR(*estimated_peak_flops(8, 0, 108, 1.41e9, "bf16") / 1e12, 312, 1);
  EXPECT_NEAR(*estimated_peak_flops(8, 0, 108, 1.41e9, "fp32") / 1e12, 19.5, 0.1);
  EXPECT_FALSE(estimated_peak_flops(7, 5, 40, 1.5e9, "bf16").has_value());
  EXPECT_FALSE(estimated_peak_flops(9, 0, 132, 1.98e9, "int8").has_value());
}

TEST(GpuPeak, BandwidthLimitsMatchThePublishedFigures) {
  // PCIe 5.0 x16: 63.0 GB/s each way; 4.0 x16: 31.5; 2.0 x8: 4.0 (8b/10b).
  EXPECT_NEAR(*pcie_bytes_per_second(5, 16) / 1e9, 63.0, 0.1);
  EXPECT_NEAR(*pcie_bytes_per_second(4, 16) / 1e9, 31.5, 0.1);
  EXPECT_NEAR(*pcie_bytes_per_second(2, 8) / 1e9, 4.0, 1e-9);
  EXPECT_FALSE(pcie_bytes_per_second(7, 16).has_value());
  EXPECT_FALSE(pcie_bytes_per_second(0, 16).has_value());
  // H100 SXM: HBM3, 5120 bits at 2619 MHz: 3.35 TB/s; A100 40 GB: 5120 bits
  // at 1215 MHz: 1.555 TB/s (NVIDIA's figures).
  EXPECT_NEAR(memory_bytes_per_second(2.619e9, 5120) / 1e12, 3.35, 0.01);
  EXPECT_NEAR(memory_bytes_per_second(1.215e9, 5120) / 1e12, 1.555, 0.001);
}

TEST(GpuPlan, EachBackEndRunsOnTheDevicesItSupports) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch", "cuda"};
  r.devices = {"cpu", "gpu"};
  std::vector<std::string> ids;
  for (const auto& c : expand_cases(r)) ids.push_back(c.id());
  EXPECT_THAT(ids, ElementsAre("fcn5/torch/cpu/b64", "fcn5/cuda/gpu/b1024"));
  r.backends = {"cuda"};
  r.devices = {"cpu"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("back end 'cuda' does not support device 'cpu'"));
}

TEST(GpuPlan, GpuMicroBenchmarksAreGpuCasesWithTheirSizes) {
  PlanRequest r;
  r.workloads = {"gpu-gemm/bf16:n=4096", "gpu-copy/d2d:size=1g", "gemm/sgemm:n=64"};
  r.backends = {"torch"};
  const auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].id(), "gpu-gemm/bf16/n4096");
  EXPECT_EQ(cases[0].device, "gpu");
  EXPECT_EQ(cases[1].id(), "gpu-copy/d2d/1G");
  EXPECT_EQ(cases[1].size, 1ll << 30);
  EXPECT_EQ(cases[1].device, "gpu");
  EXPECT_EQ(cases[2].device, "cpu");
  r.workloads = {"gpu-copy:size=12"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("not a whole number of 8-byte words"));
  r.workloads = {"gpu-gemm/int4"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("valid variants are fp32, tf32, bf16, fp16"));
}

TEST(GpuPlugin, BuiltBesideDlcbenchLoadsAndSaysWhyThereIsNoGpu) {
  if (!gpu_plugin_built()) {
    EXPECT_THAT(error_of<GpuError>([] { gpu_plugin(); }), HasSubstr("CUDA plugin is not compiled in"));
    GTEST_SKIP() << gpu_plugin_not_built();
  }
  const GpuPlugin& plugin = gpu_plugin();  // loads: every symbol resolved, the ABI matches
  EXPECT_EQ(plugin.abi, kGpuPluginAbi);
  const auto built = plugin.build_info();
  EXPECT_THAT(built["cudnn"].get<std::string>(), ::testing::StartsWith("9."));
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) {
    // The plugin's own probe names the same kind of cause, through CUDA.
    EXPECT_THAT(error_of<GpuError>([&] { plugin.probe(); }),
                AnyOf(HasSubstr("NVIDIA driver is missing"), HasSubstr("no CUDA GPU is visible")));
    EXPECT_THAT(error_of<GpuError>([&] { plugin.make_gpu_copy(params("d2d", 1 << 20)); }),
                AnyOf(HasSubstr("NVIDIA driver is missing"), HasSubstr("no CUDA GPU is visible")));
    return;
  }
  const auto device = plugin.probe();
  EXPECT_FALSE(device["name"].get<std::string>().empty());
  EXPECT_GT(device["memory_total_bytes"].get<double>(), 0);
}

TEST(GpuPlugin, ImagesCarryThePluginBesideTheBinaryAndCudnnsEngines) {
  if (!gpu_plugin_built()) GTEST_SKIP() << gpu_plugin_not_built();
  const auto extras = gpu_image_extras();
  ASSERT_FALSE(extras.empty());
  EXPECT_EQ(extras[0].in_image, "/opt/dlcbench/bin/libdlcbench-cuda.so");
  EXPECT_FALSE(extras[0].optional);
  auto named = [&](const std::string& prefix) {
    return std::any_of(extras.begin(), extras.end(), [&](const ImageExtra& e) {
      return e.path.filename().string().rfind(prefix, 0) == 0 && e.optional;
    });
  };
  EXPECT_TRUE(named("libcudnn_ops.so."));
  EXPECT_TRUE(named("libcudnn_cnn.so."));
  EXPECT_TRUE(named("libcudnn_engines_precompiled.so."));
}

// On a GPU: one real operation of each micro-benchmark, small.
TEST(GpuMicro, GemmAndCopyRunAndCheckTheirResultsOnAGpu) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << "no GPU: " << why;
  for (const char* variant : {"fp32", "tf32", "bf16", "fp16"}) {
    auto gemm = gpu_plugin().make_gpu_gemm(params(variant, 512));
    const MicroResult r = gemm->run();
    EXPECT_GT(r.seconds, 0) << variant;
    EXPECT_DOUBLE_EQ(r.work, 2.0 * 512 * 512 * 512 * gemm->describe()["products_per_operation"].get<int>());
    EXPECT_LE(r.detail["max_error_ratio"].get<double>(), 1.0) << variant;
  }
  for (const char* variant : {"h2d-pinned", "h2d-pageable", "d2h-pinned", "d2h-pageable", "d2d"}) {
    auto copy = gpu_plugin().make_gpu_copy(params(variant, 8 << 20));
    const MicroResult r = copy->run();
    EXPECT_GT(r.seconds, 0) << variant;
    EXPECT_EQ(r.work, 8 << 20);
  }
}

}  // namespace
}  // namespace dlcbench
