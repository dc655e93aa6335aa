// The framework comparison through `dlcbench run`: every back end trains the
// same network on the host and in a container in one run, each fingerprint
// names its library, and the report puts the back ends side by side.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(Backends, EveryBackEndTrainsOnTheHostAndInAContainerInOneRun) {
  REQUIRE_RUNTIME("docker");
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--verbose", "--workloads", "fcn5", "--backends", "torch,onednn,reference", "--batch",
                                  "8", "--envs", "host,docker", "--runs", "1", "--warmup", "1", "--iters", "3",
                                  "--data", "synthetic", "--out", out.path().string()},
                                 {}, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("Back ends side by side"));
  const auto run_dir = testing::only_run_dir(out.path());
  std::map<std::pair<std::string, std::string>, int> measured;
  std::map<std::string, std::set<std::string>> libraries;  // back end -> library seen in its fingerprints
  for (const auto& rec : testing::read_records(run_dir)) {
    if (!rec.contains("case")) continue;
    const std::string c = rec["case"], env = rec["env"];
    if (rec["type"] == "sample" && rec["phase"] == "measured") {
      ++measured[{c, env}];
      EXPECT_TRUE(std::isfinite(rec["loss"].get<double>())) << rec;
    }
    if (rec["type"] == "fingerprint") libraries[rec["backend"]["name"]].insert(rec["backend"]["library"]);
  }
  for (const std::string backend : {"torch", "onednn", "reference"})
    for (const std::string env : {"host", "docker"})
      EXPECT_EQ((measured[{"fcn5/" + backend + "/cpu/b8", env}]), 3) << backend << " in " << env;
  EXPECT_EQ(libraries["torch"], std::set<std::string>{"LibTorch"});
  EXPECT_EQ(libraries["onednn"], std::set<std::string>{"oneDNN"});
  EXPECT_EQ(libraries["reference"], std::set<std::string>{"dlcbench reference engine on OpenBLAS"});
}

TEST(Backends, ABackEndWithoutTheDeviceIsLeftOutSayingWhy) {
  testing::TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--backends", "onednn", "--device", "gpu", "--envs",
                                  "host", "--out", out.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("leaving out --backends onednn: it does not run on --device gpu"));
  EXPECT_THAT(r.err, HasSubstr("none of --backends onednn can run here on --device gpu"));
}

}  // namespace
}  // namespace dlcbench
