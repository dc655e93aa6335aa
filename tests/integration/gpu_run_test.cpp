// GPU cases through `dlcbench run` on the machine the tests run on. Without
// a GPU (CI): the run warns, each GPU case fails with the driver's cause in
// words, on the host and inside Docker (so the image carries the CUDA plugin
// and its libraries, which load there), and the CPU cases of the same run
// are measured. With a GPU: the same run measures everything.
#include <map>
#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "gpu/gpu_loader.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(Gpu, GpuAndCpuCasesInOneRunOnTheHostAndInDocker) {
  REQUIRE_RUNTIME("docker");
  if (!gpu_plugin_built()) GTEST_SKIP() << gpu_plugin_not_built();
  const std::string no_gpu = gpu_unavailable_reason();
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "gemm/sgemm:n=128,gpu-gemm/fp32:n=256,fcn5", "--backends",
                                  "torch,cuda", "--device", "cpu,gpu", "--batch", "8", "--envs", "host,docker",
                                  "--runs", "1", "--warmup", "1", "--iters", "2", "--data", "synthetic", "--out",
                                  out.path().string()},
                                 {{"CUDA_VISIBLE_DEVICES", "0"}}, 1200);
  const auto records = testing::read_records(testing::only_run_dir(out.path()));
  std::map<std::pair<std::string, std::string>, int> measured;
  std::map<std::pair<std::string, std::string>, std::string> failed;
  for (const auto& rec : records) {
    if (rec["type"] == "sample" && rec["phase"] == "measured") ++measured[{rec["case"], rec["env"]}];
    if (rec["type"] == "launch" && !rec["ok"].get<bool>()) failed[{rec["case"], rec["env"]}] = rec["cause"];
  }
  // The GPU the user chose is the one every environment's worker sees.
  for (const auto& rec : records) {
    if (rec["type"] != "fingerprint") continue;
    EXPECT_EQ(rec["variables"]["CUDA_VISIBLE_DEVICES"], "0") << rec["env"] << " " << rec["case"];
  }
  for (const std::string env : {"host", "docker"}) {
    EXPECT_EQ((measured[{"gemm/sgemm/n128", env}]), 2) << env;
    EXPECT_EQ((measured[{"fcn5/torch/cpu/b8", env}]), 2) << env;
  }
  if (!no_gpu.empty()) {
    EXPECT_EQ(r.exit_code, 1) << r.err;  // launches failed; what was measured is saved
    EXPECT_THAT(r.err, HasSubstr("warning: the GPU cases cannot run here and will be recorded as failed"));
    for (const std::string env : {"host", "docker"})
      for (const std::string c : {"gpu-gemm/fp32/n256", "fcn5/cuda/gpu/b8"}) {
        // The driver's absence, found by CUDA itself inside the plugin: not a
        // plugin or library that failed to load.
        EXPECT_THAT((failed[{c, env}]), HasSubstr("gpu error: ")) << c << " in " << env;
        EXPECT_THAT((failed[{c, env}]), AnyOf(HasSubstr("NVIDIA driver is missing"), HasSubstr("no CUDA GPU")))
            << c << " in " << env;
      }
    EXPECT_THAT(r.out, HasSubstr("gpu error: the NVIDIA driver is missing"));
    return;
  }
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const std::string env : {"host", "docker"}) {
    EXPECT_EQ((measured[{"gpu-gemm/fp32/n256", env}]), 2) << env;
    EXPECT_EQ((measured[{"fcn5/cuda/gpu/b8", env}]), 2) << env;
  }
}

// Without a GPU every GPU case fails the same way. Three in a row leave out
// that environment's GPU cases for the rest of the run; its CPU cases,
// before and after them and in the next round, are still measured.
TEST(Gpu, FailingGpuCasesInARowLeaveOutTheGpuCasesNotTheEnvironment) {
  if (!gpu_plugin_built()) GTEST_SKIP() << gpu_plugin_not_built();
  const std::string no_gpu = gpu_unavailable_reason();
  if (no_gpu.empty()) GTEST_SKIP() << "this machine has a GPU: its GPU cases do not fail";
  testing::TempDir out;
  // gpu-gemm is four cases (fp32, tf32, bf16, fp16), one after another.
  auto r = testing::run_dlcbench({"run", "--workloads", "gemm/sgemm:n=64,gpu-gemm:n=256,fcn5", "--backends", "torch",
                                  "--device", "cpu,gpu", "--batch", "8", "--envs", "host", "--runs", "2", "--warmup",
                                  "1", "--iters", "2", "--data", "synthetic", "--out", out.path().string()},
                                 {}, 600);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto records = testing::read_records(testing::only_run_dir(out.path()));
  std::map<std::string, int> measured, failed;
  std::vector<json> dropped;
  for (const auto& rec : records) {
    if (rec["type"] == "sample" && rec["phase"] == "measured") ++measured[rec["case"]];
    if (rec["type"] == "launch" && !rec["ok"].get<bool>()) ++failed[rec["case"]];
    if (rec["type"] == "environment_dropped") dropped.push_back(rec);
  }
  EXPECT_EQ(measured["gemm/sgemm/n64"], 4);  // 2 rounds x 2 operations
  EXPECT_EQ(measured["fcn5/torch/cpu/b8"], 4);
  EXPECT_EQ(failed["gpu-gemm/fp32/n256"] + failed["gpu-gemm/tf32/n256"] + failed["gpu-gemm/bf16/n256"] +
                failed["gpu-gemm/fp16/n256"],
            3);  // then left out, in this round and the next
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0]["device"], "gpu");
  EXPECT_THAT(dropped[0]["reason"].get<std::string>(),
              AllOf(HasSubstr("its GPU cases are left out"), HasSubstr("3 launches in a row failed")));
  EXPECT_THAT(r.out, HasSubstr("its GPU cases are left out for the rest of the run"));
}

}  // namespace
}  // namespace dlcbench
