// A user's command as the workload (`dlcbench run -- COMMAND`): a tiny static
// program, in a tiny root file system the test makes, run on the host, in a
// plain chroot of it, and in every runtime (Docker and Podman from an image
// imported from it, runc and crun on the folder itself), with its step times
// read from its output; and the bad inputs a user meets.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr int kSteps = 6;  // each about 10 ms of arithmetic
constexpr const char* kMetric = "step [0-9]+ ([0-9.]+) s";

// rootfs/ holds the program and the folders the chroot binds onto; work/
// is the working folder with the command's input; the image is the same
// root file system imported into an engine.
class CommandRun : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* dir : {"rootfs/proc", "rootfs/sys", "rootfs/dev", "rootfs/tmp", "rootfs/bin", "work"})
      fs::create_directories(dir_.path() / dir);
    fs::copy_file(COMMAND_STEPS, rootfs() / "bin/steps");
    std::ofstream(work() / "input.txt") << "twelve bytes";
  }
  void TearDown() override {
    for (const auto& [engine, tag] : images_) capture_output({engine, "rmi", "--force", tag}, 120);
  }

  fs::path rootfs() const { return dir_.path() / "rootfs"; }
  fs::path work() const { return dir_.path() / "work"; }
  fs::path out() const { return dir_.path() / "results"; }

  // The root file system as an image of `engine`; its name as run takes it.
  std::string image(const std::string& engine) {
    const fs::path tar = dir_.path() / "rootfs.tar";
    if (!fs::exists(tar)) {
      const auto packed = capture_output({"tar", "-C", rootfs().string(), "-cf", tar.string(), "."}, 120);
      EXPECT_TRUE(packed.result.ok()) << packed.result.stderr_tail;
    }
    const std::string tag = fmt::format("dlcbench-command-test:{}", getpid());
    const auto imported = capture_output({engine, "import", tar.string(), tag}, 300);
    EXPECT_TRUE(imported.result.ok()) << engine << " import: " << imported.result.stderr_tail;
    images_.emplace_back(engine, tag);
    return engine == "podman" ? "localhost/" + tag : tag;
  }

  // `run` of the steps program with a metric; `extra` before the "--".
  std::vector<std::string> command_run(const std::string& envs, int runs, std::vector<std::string> extra = {},
                                       std::vector<std::string> command = {}) {
    std::vector<std::string> args = {"run", "--verbose", "--envs", envs, "--runs", std::to_string(runs), "--max-runs",
                                     std::to_string(runs), "--out", out().string(), "--workdir", work().string(),
                                     "--metric", kMetric, "--metric-unit", "s/step"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    if (command.empty()) command = {"/bin/steps", std::to_string(kSteps), "{workdir}/input.txt"};
    args.insert(args.end(), command.begin(), command.end());
    return args;
  }

  testing::TempDir dir_;
  std::vector<std::pair<std::string, std::string>> images_;
};

TEST_F(CommandRun, EveryEnvironmentRunsTheCommandAndItsStepTimesAreCompared) {
  REQUIRE_RUNTIME("docker");
  REQUIRE_RUNTIME("podman");
  REQUIRE_RUNTIME("runc");
  REQUIRE_RUNTIME("crun");
  // ./steps: the working folder is the command's working folder everywhere.
  fs::copy_file(COMMAND_STEPS, work() / "steps");
  const std::string rootfs_option = "rootfs=" + rootfs().string();
  const std::vector<std::string> envs = {"host",
                                         "chroot:" + rootfs_option,
                                         "docker:image=" + image("docker"),
                                         "podman:image=" + image("podman"),
                                         "runc:" + rootfs_option,
                                         "crun:" + rootfs_option};
  std::string list;
  for (const auto& e : envs) list += (list.empty() ? "" : ",") + e;
  auto r = testing::run_dlcbench(
      command_run(list, 2, {"--pass-env", "DLCBENCH_TEST_VAR", "--name", "steps"}, {"./steps", std::to_string(kSteps), "{workdir}/input.txt"}),
      {{"DLCBENCH_TEST_VAR", "passed-through"}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("Your commands"));
  const auto run_dir = testing::only_run_dir(out());
  const auto records = testing::read_records(run_dir);
  std::map<std::string, int> measured, ok_launches, preflights, startups, fingerprints;
  std::map<std::string, std::set<std::string>> outputs;
  for (const auto& rec : records) {
    const std::string type = rec.value("type", ""), env = rec.value("env", "");
    if (type == "sample" && rec.value("phase", "") == "measured") {
      ++measured[env];
      EXPECT_GT(rec.value("seconds", 0.0), 0.0);
      EXPECT_EQ(rec["case"], "cmd:steps");
    }
    if (type == "launch" && rec.value("ok", false)) ++ok_launches[env];
    // Its start-up, up to the line of its one warm-up step, apart from its steps.
    if (type == "command_startup") {
      ++startups[env];
      EXPECT_EQ(rec["iterations"], 1) << env;
      EXPECT_GT(rec.value("seconds", 0.0), 0.0) << env;
      EXPECT_EQ(rec["accounting"]["phase"], "startup") << env;
    }
    if (type == "accounting") {
      EXPECT_EQ(rec["batches"], kSteps - 1) << env;  // the steps after the start-up
      EXPECT_TRUE(rec.contains("after_last_mark")) << env << ": " << rec.dump();
      EXPECT_GE(rec["process"].value("threads_at_work", 0.0), 0.5) << env << ": " << rec.dump();
      // The command ended before the orchestrator read it: counted inside.
      EXPECT_GT(rec["outside"]["worker_cpu_seconds"].get<double>(), 0.0) << env;
    }
    if (type == "fingerprint") {
      ++fingerprints[env];
      EXPECT_TRUE(rec.value("probe", false)) << env;
      EXPECT_TRUE(rec.contains("command_libraries")) << env;
    }
    if (type == "command_output") outputs[env].insert(rec.value("text", ""));
    if (type == "preflight" && rec.value("ok", false)) {
      ++preflights[env];
      EXPECT_TRUE(rec["fingerprint"].value("probe", false)) << env;
      EXPECT_TRUE(rec["fingerprint"].contains("command_libraries")) << env;  // a static program: none
    }
  }
  for (const auto& env : envs) {
    EXPECT_EQ(ok_launches[env], 2) << env;
    // One warm-up step per launch (the default with --metric).
    EXPECT_EQ(measured[env], 2 * (kSteps - 1)) << env;
    EXPECT_EQ(preflights[env], 1) << env;
    EXPECT_EQ(startups[env], 2) << env;
    EXPECT_EQ(fingerprints[env], 2) << env;
    // {workdir} and DLCBENCH_TEST_VAR reached the command as each environment sees them.
    const std::string workdir = env == "host" ? work().string() : "/work";
    EXPECT_TRUE(outputs[env].count(fmt::format("input {}/input.txt has 12 bytes", workdir))) << env;
    EXPECT_TRUE(outputs[env].count("DLCBENCH_TEST_VAR=passed-through")) << env;
    if (env != "host") {
      EXPECT_THAT(r.out, HasSubstr(env + " vs host")) << env;
    }
  }
  const auto manifest = json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "completed");
  const json& command = manifest["plan"]["cases"][0]["command"];
  // Issue 35, item 14: the names of passed variables, never their values.
  EXPECT_EQ(command["pass_env"], json::array({"DLCBENCH_TEST_VAR"}));
  EXPECT_FALSE(command.contains("env"));
  EXPECT_EQ(manifest.dump().find("passed-through"), std::string::npos);
  EXPECT_EQ(command["metric"]["pattern"], kMetric);
  // The chroot runs without isolation: the host's namespaces but for mounts.
  for (const auto& rec : records) {
    if (rec.value("type", "") == "preflight" && rec.value("env", "").rfind("chroot", 0) == 0) {
      EXPECT_EQ(rec["fingerprint"]["isolation"]["pid_namespace"], manifest["orchestrator"]["isolation"]["pid_namespace"]);
    }
  }
}

TEST_F(CommandRun, ACommandMissingFromTheImageNamesTheImageAndThePath) {
  REQUIRE_RUNTIME("docker");
  const std::string tag = image("docker");
  // On the host, not in the image (which holds the static test command alone).
  auto r = testing::run_dlcbench(command_run("host,docker:image=" + tag, 1, {"--name", "missing"},
                                             {"/usr/bin/env", "1"}));
  EXPECT_NE(r.exit_code, 0);
  const std::string all = r.err + r.out;
  EXPECT_THAT(all, HasSubstr("cannot run /usr/bin/env: No such file or directory"));
  EXPECT_THAT(all, HasSubstr("in image " + tag));
}

// Issue 35, item 13: runsc left an empty tmp/.dlcbench-probe in the user's
// root file system.
TEST_F(CommandRun, RunscLeavesTheUsersRootFileSystemAsItWas) {
  REQUIRE_RUNTIME("runsc");
  fs::copy_file(COMMAND_STEPS, work() / "steps");
  // The working folder's mount point: every runtime makes one that is
  // missing (as for a volume); the image is expected to hold it.
  fs::create_directories(rootfs() / "work");
  const auto files = [&] {
    std::set<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(rootfs()))
      found.insert(fs::relative(e.path(), rootfs()).string());
    return found;
  };
  const std::set<std::string> before = files();
  auto r = testing::run_dlcbench(command_run("host,runsc:rootfs=" + rootfs().string(), 1, {"--name", "steps"},
                                             {"./steps", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files(), before);
}

TEST_F(CommandRun, AMetricThatNeverMatchesShowsThePatternAndTheFirstLines) {
  fs::copy_file(COMMAND_STEPS, work() / "steps");
  auto args = command_run("host,chroot:rootfs=" + rootfs().string(), 1, {"--name", "nomatch"}, {"./steps", "2"});
  const auto metric = std::find(args.begin(), args.end(), std::string(kMetric));
  ASSERT_NE(metric, args.end());
  *metric = "loss ([0-9.]+)";
  auto r = testing::run_dlcbench(args);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("metric error: the pattern 'loss ([0-9.]+)' matched 0 of the command's"));
  EXPECT_THAT(r.err, HasSubstr("step 0 "));  // its first lines are shown
}

TEST_F(CommandRun, ACommandThatFailsFailsItsLaunchWithItsStderrAndTheOthersGoOn) {
  fs::copy_file(COMMAND_STEPS, work() / "steps");
  // /bin/steps is in the root file system only: the host's command fails
  // three times and the host is left out; the chroot's passes.
  auto r = testing::run_dlcbench(command_run("chroot:rootfs=" + rootfs().string() + ",host", 3,
                                             {"--name", "failing", "--baseline", "chroot:rootfs=" + rootfs().string()},
                                             {"./steps", "2", "--exit-unless", "/bin/steps", "3"}));
  EXPECT_NE(r.exit_code, 0);
  const auto records = testing::read_records(testing::only_run_dir(out()));
  int failed = 0, dropped = 0, chroot_ok = 0;
  for (const auto& rec : records) {
    if (rec.value("type", "") == "launch" && rec.value("env", "") == "host" && !rec.value("ok", true)) {
      ++failed;
      EXPECT_THAT(rec.value("cause", ""), HasSubstr("exited with status 3"));
      EXPECT_THAT(rec.value("stderr_tail", ""), HasSubstr("failing on purpose with status 3"));
    }
    if (rec.value("type", "") == "environment_dropped" && rec.value("env", "") == "host") ++dropped;
    if (rec.value("type", "") == "launch" && rec.value("env", "").rfind("chroot", 0) == 0 && rec.value("ok", false))
      ++chroot_ok;
  }
  EXPECT_EQ(failed, 3);
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(chroot_ok, 3);
}

TEST(CommandOptions, BadMetricsAndOptionsAreUsageErrorsBeforeAnythingRuns) {
  testing::TempDir out;
  auto two_groups = testing::run_dlcbench({"run", "--envs", "host", "--out", out.path().string(), "--metric",
                                           "(a)(b)", "--", "/bin/true"});
  EXPECT_EQ(two_groups.exit_code, 2) << two_groups.err;
  EXPECT_THAT(two_groups.err, HasSubstr("has 2 capture groups: give exactly one"));
  auto unit_alone = testing::run_dlcbench(
      {"run", "--envs", "host", "--out", out.path().string(), "--higher-is-better", "--", "/bin/true"});
  EXPECT_EQ(unit_alone.exit_code, 2);
  EXPECT_THAT(unit_alone.err, HasSubstr("give --metric too"));
  auto unset = testing::run_dlcbench({"run", "--envs", "host", "--out", out.path().string(), "--pass-env",
                                      "DLCBENCH_SURELY_UNSET_VARIABLE", "--", "/bin/true"});
  EXPECT_EQ(unset.exit_code, 2);
  EXPECT_THAT(unset.err, HasSubstr("is not set here"));
  auto chroot_alone = testing::run_dlcbench(
      {"run", "--envs", "host,chroot", "--out", out.path().string(), "--", "/bin/true"});
  EXPECT_NE(chroot_alone.exit_code, 0);
  EXPECT_THAT(chroot_alone.err, HasSubstr("chroot:rootfs=DIR"));
}

// Processes whose command line holds `token`, alive now (zombies aside).
std::vector<std::string> processes_with(const std::string& token) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    std::ifstream stat(entry.path() / "stat");
    std::string stat_text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = stat_text.rfind(')');
    const bool zombie = close != std::string::npos && stat_text.size() > close + 2 && stat_text[close + 2] == 'Z';
    if (!zombie && cmdline.find(token) != std::string::npos) found.push_back(pid + ": " + cmdline);
  }
  return found;
}

// Issue 35 item 6: `sh -c 'sleep 177 & echo hi'` was recorded as 2.0 s a
// launch (the probe waited for the pipes the sleep held), with no message,
// and the sleeps stayed running under PID 1.
TEST(CommandLeftovers, WhatACommandLeavesRunningIsEndedNamedAndNotTimed) {
  const std::string token = fmt::format("177.{}", getpid());  // sleep's argument: this test's own
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"background job", fmt::format("/bin/sleep {}1 & echo hi", token)},
      {"setsid", fmt::format("setsid /bin/sleep {}2 & echo hi", token)},
      {"double fork", fmt::format("( /bin/sleep {}3 & ) ; echo hi", token)},
  };
  for (const auto& [how, script] : commands) {
    SCOPED_TRACE(how);
    testing::TempDir out;
    const auto r = testing::run_dlcbench({"run", "--envs", "host", "--runs", "2", "--warmup", "0", "--out",
                                          out.path().string(), "--", "/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Named as they were when it exited: a background child may not have
    // become sleep yet (still sh, or setsid).
    EXPECT_THAT(r.out, HasSubstr("in 2 launches the command left processes running when it exited ("));
    EXPECT_THAT(r.out, HasSubstr("dlcbench-probe ended them then"));
    for (const auto& rec : testing::read_records(testing::only_run_dir(out.path()))) {
      if (rec.value("type", "") != "sample") continue;
      EXPECT_LT(rec.value("seconds", 9.0), 1.0) << rec.dump();
    }
    EXPECT_EQ(processes_with(token), std::vector<std::string>{}) << "left running after the run";
  }
}

// Issue 35 item 7: past its first lines a command's output is only counted,
// and a line is read only where the metric's required text is: every figure
// among 300,000 lines is still read, at any place in the pipe's blocks, and
// every line is counted.
TEST(CommandMetric, EveryFigureAmongManyLinesIsReadAndEveryLineCounted) {
  testing::TempDir out;
  const auto r = testing::run_dlcbench(
      {"run", "--envs", "host", "--runs", "1", "--warmup", "0", "--metric", "step [0-9]+ ([0-9.]+) s", "--out",
       out.path().string(), "--", "awk",
       "BEGIN { for (i = 1; i <= 300000; i++) { print i; if (i % 1000 == 0) printf \"step %d %.3f s\\n\", "
       "i / 1000, i / 1000000 } }"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<double> figures;
  std::optional<long> lines;
  for (const auto& rec : testing::read_records(testing::only_run_dir(out.path()))) {
    const std::string type = rec.value("type", "");
    if (type == "sample" && rec.value("phase", "") == "measured") figures.push_back(rec["seconds"].get<double>());
    if (type == "command_run") lines = rec["output_lines"].get<long>();
  }
  ASSERT_EQ(figures.size(), 300u);
  for (std::size_t k = 0; k < figures.size(); ++k)
    EXPECT_NEAR(figures[k], static_cast<double>(k + 1) / 1000.0, 1e-9) << "figure " << k + 1;
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(*lines, 300300);
}

// Issue 35 item 2: sysbench, one figure as it ends, showed "busy CPUs 19.9"
// on 2 CPUs, "threads at work 0.0" and 0.28 ms of wall time "per batch":
// its measured phase is what follows that line. Such a tool's counters are
// n/a, with the reason; and no CPU time is ever negative.
TEST(CommandCounters, ASingleFigureToolsCountersAreNaWithTheReason) {
  testing::TempDir out;
  const auto r = testing::run_dlcbench(
      {"run", "--envs", "host,host", "--runs", "2", "--warmup", "0", "--metric", "events per second: *([0-9.]+)",
       "--higher-is-better", "--metric-unit", "events/s", "--out", out.path().string(), "--", "/bin/sh", "-c",
       "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; echo 'events per second: 123.4'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dir = testing::only_run_dir(out.path());
  for (const auto& rec : testing::read_records(dir)) {
    if (rec.value("type", "") != "accounting" || !rec.contains("machine")) continue;
    if (rec["machine"].contains("others_cpu_seconds")) {
      EXPECT_GE(rec["machine"]["others_cpu_seconds"].get<double>(), 0.0) << rec["machine"].dump();
    }
  }
  const auto report = testing::run_dlcbench({"report", dir.string(), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json explanations = json::parse(report.out)["cases"][0]["explanations"];
  ASSERT_FALSE(explanations.empty());
  for (const auto& counter : explanations[0]["counters"]) {
    ASSERT_TRUE(counter.contains("unavailable")) << counter.dump();
    EXPECT_THAT(counter["unavailable"].get<std::string>(), HasSubstr("prints one figure as it ends")) << counter.dump();
  }
}

}  // namespace
}  // namespace dlcbench
