// Security as a user sees it: containers run unprivileged under the
// runtime's default seccomp profile and capability set, the data is mounted
// read-only, results are not writable by others, and no folder a user names
// (--out, --path, --data) loses a file to dlcbench.
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using testing::TempDir;

// Every capability of this kernel: what the host's root has.
std::uint64_t all_capabilities() {
  std::ifstream last("/proc/sys/kernel/cap_last_cap");
  int n = 40;
  last >> n;
  return (std::uint64_t{1} << (n + 1)) - 1;
}

TEST(Security, ContainersRunUnprivilegedUnderTheRuntimesDefaults) {
  std::string envs = "host";
  std::vector<std::string> containers;
  for (const std::string name : {"docker", "podman", "runc", "crun", "runsc"})
    if (testing::runtime_problem(name).empty()) envs += "," + name, containers.push_back(name);
  if (containers.empty()) {
    if (testing::runtimes_required()) FAIL() << "no container runtime starts containers here";
    GTEST_SKIP() << "no container runtime starts containers here";
  }
  TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--batch", "8", "--warmup", "0", "--iters", "1",
                                  "--runs", "1", "--data", "synthetic", "--envs", envs, "--out", out.path().string()},
                                 {}, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto by_env = testing::summarize_by_env(testing::read_records(testing::only_run_dir(out.path())));
  for (const auto& name : containers) {
    ASSERT_FALSE(by_env.at(name).fingerprints.empty()) << name;
    const json& security = by_env.at(name).fingerprints.front()["security"];
    const auto caps = std::stoull(security["capabilities_effective"].get<std::string>(), nullptr, 16);
    EXPECT_NE(caps, all_capabilities()) << name << " ran with every capability";
    // CAP_SYS_ADMIN (21) is what --privileged or a careless config gives.
    EXPECT_EQ((caps >> 21) & 1, 0u) << name;
    if (name == "docker" || name == "podman") EXPECT_EQ(security["seccomp"], "filter") << name;
    // gVisor's /proc/self/status has no NoNewPrivs line (read as null): the
    // bundle's setting is checked below instead.
    else if (name == "runsc") EXPECT_TRUE(security["no_new_privs"].is_null()) << security;
    else EXPECT_TRUE(security["no_new_privs"].get<bool>()) << name;  // the bundle's setting, as `runc spec` writes it
  }
  auto manifest = json::parse(std::ifstream(testing::only_run_dir(out.path()) / "manifest.json"));
  if (std::find(containers.begin(), containers.end(), "runsc") != containers.end()) {
    EXPECT_EQ(manifest["environments"]["runsc"]["config"]["process"]["noNewPrivileges"], true);
    // Inside, the kernel is gVisor's own (it reports 4.4.0), not the host's.
    EXPECT_NE(by_env.at("runsc").fingerprints.front()["kernel"], by_env.at("host").fingerprints.front()["kernel"]);
  }
  for (const auto& name : containers) {
    const std::string command = manifest["environments"][name].dump();
    EXPECT_THAT(command, Not(HasSubstr("--privileged"))) << name;
    EXPECT_THAT(command, Not(HasSubstr("unconfined"))) << name;
    EXPECT_THAT(command, Not(HasSubstr("--cap-add"))) << name;
  }
}

TEST(Security, ResultsAreNotWritableByOthers) {
  TempDir out;
  auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--batch", "8", "--warmup", "0", "--iters", "1",
                                  "--runs", "1", "--data", "synthetic", "--envs", "host", "--out",
                                  out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run_dir = testing::only_run_dir(out.path());
  for (const auto& entry : fs::recursive_directory_iterator(out.path())) {
    const auto perms = fs::status(entry.path()).permissions();
    EXPECT_EQ(perms & fs::perms::others_write, fs::perms::none) << entry.path();
    EXPECT_EQ(perms & fs::perms::group_write, fs::perms::none) << entry.path();
  }
  EXPECT_TRUE(fs::exists(run_dir / "results.jsonl"));
}

// A file of known content, to see that it is untouched afterwards.
void plant(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "keep me: " << file.filename().string() << "\n";
}
bool intact(const fs::path& file) {
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  return text == "keep me: " + file.filename().string() + "\n";
}

TEST(Security, NoFileInAFolderTheUserNamesIsDeleted) {
  TempDir dir;
  // Names dlcbench itself uses for its scratch files and run folders.
  const std::vector<fs::path> planted = {dir / "out" / "notes.txt", dir / "out" / "20991231-000000-dead" / "manifest.json",
                                         dir / "io" / "dlcbench-io-AAAAAA", dir / "io" / "data.bin",
                                         dir / "data" / "unrelated.txt"};
  for (const auto& f : planted) plant(f);
  auto r = testing::run_dlcbench({"run", "--workloads", "io-seq:size=4m,block=1m,mode=buffered,fcn5", "--batch", "8",
                                  "--warmup", "0", "--iters", "1", "--runs", "1", "--data", "synthetic", "--envs",
                                  "host", "--path", (dir / "io").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // An environment label cannot name a path either.
  auto bad = testing::run_dlcbench({"run", "--workloads", "fcn5", "--envs", "host,runc#/../../io", "--data",
                                    "synthetic", "--out", (dir / "out").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  for (const auto& f : planted) EXPECT_TRUE(intact(f)) << f;
  std::vector<std::string> io_files;
  for (const auto& e : fs::directory_iterator(dir / "io")) io_files.push_back(e.path().filename().string());
  EXPECT_THAT(io_files, ::testing::UnorderedElementsAre("dlcbench-io-AAAAAA", "data.bin"));  // the scratch file went
}

}  // namespace
}  // namespace dlcbench
