// Charliecloud (ch-run) for real: dlcbench's own workloads beside the host,
// as root and as an ordinary user (Charliecloud needs no root), the I/O
// targets, and a user's command in an image folder the test writes.
#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

// fcn5 (two small batches) and the startup workload: every kind of launch
// but a command's.
std::vector<std::string> small_run(const fs::path& out) {
  return {"run", "--verbose",    "--workloads", "fcn5,startup", "--envs",  "host,charliecloud", "--runs",  "2",
          "--max-runs", "2",       "--iters",      "2",       "--warmup",          "0",       "--batch",
          "4",      "--starts",    "3",            "--data",  "synthetic",         "--threads", "1",
          "--out",  out.string()};
}

// The run under `out` measured both environments alike, compared them, and
// left nothing behind.
void expect_host_and_charliecloud_alike(const fs::path& out, const std::string& stdout_text) {
  EXPECT_THAT(stdout_text, HasSubstr("charliecloud vs host"));
  const auto run_dir = testing::only_run_dir(out);
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "completed");
  const json& described = manifest["environments"]["charliecloud"];
  EXPECT_FALSE(described["version"].get<std::string>().empty()) << described;
  EXPECT_THAT(described["isolation"].get<std::string>(), HasSubstr("a user and a mount namespace only"));
  // Its image folder and /tmp went with the run.
  EXPECT_EQ(scratch_dirs_left("dlcbench-charliecloud-" + manifest["run_id"].get<std::string>()),
            std::vector<fs::path>{});
  EXPECT_EQ(scratch_dirs_left("dlcbench-host-" + manifest["run_id"].get<std::string>()), std::vector<fs::path>{});

  const auto records = testing::read_records(run_dir);
  std::map<std::string, std::map<std::string, int>> measured;  // env -> case -> samples
  for (const auto& rec : records)
    if (rec.value("type", "") == "sample" && rec.value("phase", "") == "measured")
      ++measured[rec["env"].get<std::string>()][rec["case"].get<std::string>()];
  for (const std::string env : {"host", "charliecloud"}) {
    ASSERT_EQ(measured[env].size(), 2u) << env << ": " << ::testing::PrintToString(measured[env]);
    for (const auto& [case_id, samples] : measured[env])
      EXPECT_EQ(samples, case_id.rfind("startup", 0) == 0 ? 6 : 4) << env << " " << case_id;
  }
  const auto envs = testing::summarize_by_env(records);
  ASSERT_FALSE(envs.at("host").fingerprints.empty());
  ASSERT_FALSE(envs.at("charliecloud").fingerprints.empty());
  const json& host = envs.at("host").fingerprints[0];
  const json& inside = envs.at("charliecloud").fingerprints[0];
  // The worker fingerprinted itself in the container, with the same bits.
  EXPECT_TRUE(inside["container"]["in_container"].get<bool>()) << inside["container"];
  EXPECT_THAT(inside["container"]["detected_by"].get<std::string>(), HasSubstr("CH_RUNNING"));
  EXPECT_NE(inside["mount_namespace"], manifest["orchestrator"]["mount_namespace"]);
  EXPECT_EQ(inside["binary_sha256"], host["binary_sha256"]);
  EXPECT_EQ(inside["libraries"], host["libraries"]);
  EXPECT_EQ(inside["blas"]["core"], host["blas"]["core"]);
  EXPECT_EQ(inside["backend"]["threads"], host["backend"]["threads"]);
  // No PID or network namespace of its own: the host's.
  EXPECT_EQ(inside["isolation"]["pid_namespace"], host["isolation"]["pid_namespace"]);
  EXPECT_EQ(inside["isolation"]["net_namespace"], host["isolation"]["net_namespace"]);
}

TEST(Charliecloud, HostAndChRunMeasureIdenticalBitsAndLeaveNothingBehind) {
  REQUIRE_RUNTIME("charliecloud");
  testing::TempDir out;
  auto r = testing::run_dlcbench(small_run(out.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("Container start-up"));
  expect_host_and_charliecloud_alike(out.path(), r.out);
}

// An ordinary user's run: as root, the test runs dlcbench as nobody (setpriv
// drops every privilege); as an ordinary user it runs it as itself.
TEST(Charliecloud, AnOrdinaryUserMeasuresHostAndChRunWithoutRoot) {
  REQUIRE_RUNTIME("charliecloud");
  testing::TempDir dir;
  const fs::path out = dir / "results";
  std::vector<std::string> argv = {DLCBENCH_BINARY};
  std::vector<std::pair<std::string, std::string>> env;
  if (geteuid() == 0) {
    const passwd* nobody = getpwnam("nobody");
    if (!nobody || !find_program("setpriv")) GTEST_SKIP() << "no user nobody or no setpriv to run as it";
    // The user's own folders: the results and a home.
    for (const fs::path& folder : {dir.path(), out}) {
      fs::create_directories(folder);
      ASSERT_EQ(chown(folder.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
    }
    argv = {"setpriv", fmt::format("--reuid={}", nobody->pw_uid), fmt::format("--regid={}", nobody->pw_gid),
            "--init-groups", "--inh-caps=-all", DLCBENCH_BINARY};
    // Its results store is its own too (the tests' store is root's).
    env = {{"USER", "nobody"},
           {"LOGNAME", "nobody"},
           {"HOME", dir.path().string()},
           {"DLCBENCH_STORE", (dir.path() / "store.sqlite").string()}};
  }
  const auto args = small_run(out);
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.timeout_seconds = 900;
  std::string stdout_text;
  const auto result = run_process(spec, [&](std::string_view line) { stdout_text.append(line).push_back('\n'); });
  ASSERT_TRUE(result.ok()) << result.describe() << "\n" << result.stderr_tail << stdout_text;
  expect_host_and_charliecloud_alike(out, stdout_text);
  // It ran as that user: the run's files are its own.
  struct stat st {};
  ASSERT_EQ(stat(testing::only_run_dir(out).c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, geteuid() == 0 ? getpwnam("nobody")->pw_uid : geteuid());
}

TEST(Charliecloud, IoBenchmarksWriteInTheImageTheHostsTmpfsAndABoundFolder) {
  REQUIRE_RUNTIME("charliecloud");
  testing::TempDir out, folder;
  auto r = testing::run_dlcbench({"run", "--workloads", "io-seq:size=4m,block=1m,mode=buffered", "--path",
                                  "rootfs,tmpfs," + folder.path().string(), "--envs", "host,charliecloud", "--runs",
                                  "1", "--warmup", "0", "--iters", "1", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::map<std::string, std::string> fs_type;  // case@env -> file system
  int measured = 0;
  for (const auto& rec : testing::read_records(testing::only_run_dir(out.path()))) {
    if (rec.value("type", "") == "sample" && rec.value("phase", "") == "measured" && rec["env"] == "charliecloud")
      ++measured;
    if (rec.value("type", "") == "fingerprint" && rec.contains("micro") && rec["micro"].contains("fs_type"))
      fs_type[rec["case"].get<std::string>() + "@" + rec["env"].get<std::string>()] = rec["micro"]["fs_type"];
  }
  EXPECT_EQ(measured, 6);  // write and read on three paths
  const std::string in_folder = "@" + folder.path().string();
  EXPECT_EQ(fs_type["io-seq/write/buffered/bs1M/4M@tmpfs@charliecloud"], "tmpfs") << ::testing::PrintToString(fs_type);
  // The bound folder is the host's file system, seen from inside.
  EXPECT_FALSE(fs_type["io-seq/write/buffered/bs1M/4M" + in_folder + "@host"].empty())
      << ::testing::PrintToString(fs_type);
  EXPECT_EQ(fs_type["io-seq/write/buffered/bs1M/4M" + in_folder + "@charliecloud"],
            fs_type["io-seq/write/buffered/bs1M/4M" + in_folder + "@host"])
      << ::testing::PrintToString(fs_type);
  EXPECT_TRUE(fs::is_empty(folder.path()));  // the scratch files went at once
}

// A user's command in an image folder the test writes: the static steps
// program and what ch-run binds onto, nothing else.
class CharliecloudCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* folder : {"image/proc", "image/sys", "image/dev", "image/tmp", "image/bin", "image/etc", "work"})
      fs::create_directories(dir_ / folder);
    for (const char* file : {"image/etc/passwd", "image/etc/group"}) std::ofstream(dir_ / file).flush();
    fs::copy_file(COMMAND_STEPS, dir_ / "image/bin/steps");
    fs::copy_file(COMMAND_STEPS, dir_ / "work/steps");  // the host's: ./steps in the working folder
    std::ofstream(dir_ / "work/input.txt") << "twelve bytes";
  }
  std::vector<std::string> run(const std::string& charliecloud, const std::vector<std::string>& command) const {
    std::vector<std::string> args = {"run", "--verbose", "--envs", "host," + charliecloud, "--runs", "2", "--max-runs", "2",
                                     "--out", (dir_ / "results").string(), "--workdir", (dir_ / "work").string(),
                                     "--metric", "step [0-9]+ ([0-9.]+) s", "--metric-unit", "s/step", "--name",
                                     "steps", "--pass-env", "DLCBENCH_TEST_VAR", "--"};
    args.insert(args.end(), command.begin(), command.end());
    return args;
  }
  std::set<std::string> files_of_image() const {
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "image"))
      files.insert(fs::relative(e.path(), dir_ / "image").string());
    return files;
  }
  testing::TempDir dir_;
};

TEST_F(CharliecloudCommand, AUsersCommandRunsInTheirImageFolderUnderTheProbe) {
  REQUIRE_RUNTIME("charliecloud");
  const std::set<std::string> before = files_of_image();
  const std::string env = "charliecloud:image_dir=" + (dir_ / "image").string();
  auto r = testing::run_dlcbench(run(env, {"./steps", "6", "{workdir}/input.txt"}),
                                 {{"DLCBENCH_TEST_VAR", "passed-through"}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr(env + " vs host"));
  const auto run_dir = testing::only_run_dir(dir_ / "results");
  std::map<std::string, int> measured, ok_launches, fingerprints;
  std::map<std::string, std::set<std::string>> outputs;
  for (const auto& rec : testing::read_records(run_dir)) {
    const std::string type = rec.value("type", ""), where = rec.value("env", "");
    if (type == "sample" && rec.value("phase", "") == "measured") ++measured[where];
    if (type == "launch" && rec.value("ok", false)) ++ok_launches[where];
    if (type == "command_output") outputs[where].insert(rec.value("text", ""));
    if (type == "fingerprint") {
      ++fingerprints[where];
      EXPECT_TRUE(rec.value("probe", false)) << where;
      if (where == env) {
        EXPECT_THAT(rec["container"]["detected_by"].get<std::string>(), HasSubstr("CH_RUNNING"));
      }
    }
  }
  for (const std::string& e : {std::string("host"), env}) {
    EXPECT_EQ(ok_launches[e], 2) << e;
    EXPECT_EQ(measured[e], 2 * 5) << e;  // one warm-up step of six per launch
    EXPECT_EQ(fingerprints[e], 2) << e;
    EXPECT_TRUE(outputs[e].count("DLCBENCH_TEST_VAR=passed-through")) << e;
  }
  // The working folder is at /work in the image, the command's folder there.
  EXPECT_TRUE(outputs[env].count("input /work/input.txt has 12 bytes")) << ::testing::PrintToString(outputs[env]);
  // The image gained only the mount point of the working folder.
  std::set<std::string> expected = before;
  expected.insert("work");
  EXPECT_EQ(files_of_image(), expected);
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(scratch_dirs_left("dlcbench-charliecloud-" + manifest["run_id"].get<std::string>()),
            std::vector<fs::path>{});
}

TEST_F(CharliecloudCommand, AnImageFolderLackingWhatChRunNeedsSaysWhatToCreate) {
  REQUIRE_RUNTIME("charliecloud");
  fs::remove(dir_ / "image/etc/passwd");
  fs::remove(dir_ / "image/dev");
  const std::vector<std::pair<std::string, std::string>> variable = {{"DLCBENCH_TEST_VAR", "set"}};
  auto r = testing::run_dlcbench(run("charliecloud:image_dir=" + (dir_ / "image").string(), {"./steps", "2"}), variable);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("lacks /dev, /etc/passwd, which ch-run binds onto: create them"));
  auto none = testing::run_dlcbench(run("charliecloud", {"./steps", "2"}), variable);
  EXPECT_NE(none.exit_code, 0);
  EXPECT_THAT(none.err, HasSubstr("charliecloud:image_dir=DIR"));
  // Issue 35, item 20: a missing folder was named as charliecloud:rootfs=.
  const std::string missing = (dir_ / "no-such-image").string();
  auto gone = testing::run_dlcbench(run("charliecloud:image_dir=" + missing, {"./steps", "2"}), variable);
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_THAT(gone.err, AllOf(HasSubstr("charliecloud:image_dir=" + missing + ": no such folder"),
                              Not(HasSubstr("rootfs="))));
}

}  // namespace
}  // namespace dlcbench
