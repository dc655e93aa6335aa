// GPU cases through `dlcbench run` on the machine the tests run on. Without
// a GPU (CI): the run warns, each GPU case fails with the driver's cause in
// words, on the host and inside Docker (so the image carries the CUDA plugin
// and its libraries, which load there), and the CPU cases of the same run
// are measured. With a GPU: the same run measures everything.
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "gpu/gpu_loader.h"
#include "test_support.h"

namespace dlcbench {
namespace {

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
                                 {}, 1200);
  const auto records = testing::read_records(testing::only_run_dir(out.path()));
  std::map<std::pair<std::string, std::string>, int> measured;
  std::map<std::pair<std::string, std::string>, std::string> failed;
  for (const auto& rec : records) {
    if (rec["type"] == "sample" && rec["phase"] == "measured") ++measured[{rec["case"], rec["env"]}];
    if (rec["type"] == "launch" && !rec["ok"].get<bool>()) failed[{rec["case"], rec["env"]}] = rec["cause"];
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

}  // namespace
}  // namespace dlcbench
