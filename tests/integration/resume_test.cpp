// `dlcbench run --resume DIR`: a run killed with SIGKILL in the middle of a
// launch is continued in the same folder; every launch ends up measured
// exactly once, the report covers both sessions, and a resume with another
// binary, another plan or nothing left to do is refused or says so.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "core/results_file.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using testing::records_so_far;
using testing::TempDir;

constexpr int kRuns = 3;
constexpr int kIters = 10;

std::vector<std::string> small_run(const fs::path& out, const std::string& envs) {
  return {"run",     "--workloads", "gemm/sgemm:n=64,fcn5", "--batch", "8",       "--runs", std::to_string(kRuns),
          "--iters", std::to_string(kIters), "--warmup", "1", "--data", "synthetic", "--threads", "1",
          "--envs",  envs,          "--seed", "11",         "--out",   out.string()};
}

// A launch has finished, and the next one in `env` has printed samples:
// killing now leaves that launch cut off (samples but no launch record).
bool mid_launch_after_a_finished_one(const std::vector<json>& records, const std::string& env) {
  bool finished = false, sampling = false;
  for (const auto& r : records) {
    const std::string type = r.value("type", "");
    if (type == "launch") {
      finished = true;
      sampling = false;
    } else if (type == "sample" && r.value("env", "") == env) {
      sampling = finished;
    }
  }
  return sampling;
}

// Starts the run and kills it with SIGKILL in the middle of a launch in `env`.
fs::path start_and_kill(const TempDir& dir, const std::string& envs, const std::string& env) {
  const fs::path out = dir / "res";
  const pid_t pid = testing::spawn_dlcbench(small_run(out, envs), dir / "log");
  bool caught = false;
  for (int i = 0; i < 60000 && !caught; ++i) {  // up to about 5 minutes
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    caught = mid_launch_after_a_finished_one(records_so_far(out), env);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(caught) << "no launch in " << env << " was caught in progress";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the run ended before it was killed";
  return testing::only_run_dir(out);
}

json manifest_of(const fs::path& run_dir) { return read_json_file(run_dir / "manifest.json"); }

// Successful launch records per (round, case, env).
std::map<std::string, int> ok_launches(const std::vector<json>& records) {
  std::map<std::string, int> by_key;
  for (const auto& r : records)
    if (r.value("type", "") == "launch" && r.value("ok", false))
      ++by_key[fmt::format("{}@{}#{}", r["case"].get<std::string>(), r["env"].get<std::string>(),
                           r["round"].get<int>())];
  return by_key;
}

// Every launch of the plan measured exactly once, and the report's figures
// are those of an uninterrupted run: kRuns run values of kIters batches and
// one warm-up each, per case and environment.
void expect_complete(const fs::path& run_dir, const std::vector<std::string>& envs) {
  const auto records = testing::read_records(run_dir);
  const auto launches = ok_launches(records);
  EXPECT_EQ(launches.size(), 2u * envs.size() * kRuns);
  for (const auto& [key, count] : launches) EXPECT_EQ(count, 1) << key;

  const auto manifest = manifest_of(run_dir);
  EXPECT_EQ(manifest["status"], "completed");
  EXPECT_TRUE(manifest.contains("ended_at"));
  EXPECT_EQ(manifest["failed_launches"], 0);
  ASSERT_EQ(manifest["resumed"].size(), 1u);
  EXPECT_GE(manifest["resumed"][0]["missing_launches"].get<int>(), 1);
  EXPECT_EQ(manifest["resumed"][0]["cut_off_launches"], 1);
  EXPECT_TRUE(manifest["resumed"][0].contains("preflight"));

  auto report = testing::run_dlcbench({"report", run_dir.string(), "--format", "json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json j = json::parse(report.out);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    ASSERT_EQ(c["envs"].size(), envs.size());
    for (const auto& e : c["envs"]) {
      SCOPED_TRACE(c["case"].get<std::string>() + " in " + e["env"].get<std::string>());
      EXPECT_EQ(e["run_values"].size(), static_cast<std::size_t>(kRuns));
      EXPECT_EQ(e["batch_seconds"].size(), static_cast<std::size_t>(kRuns * kIters));
      EXPECT_EQ(e["warmup_count"], kRuns);
      EXPECT_EQ(e["failed_launches"], 0);
    }
  }
  auto console = testing::run_dlcbench({"report", run_dir.string()});
  EXPECT_EQ(console.exit_code, 0) << console.err;
  EXPECT_THAT(console.out, AllOf(HasSubstr("fcn5/torch/cpu/b8"), HasSubstr("cut off before the run was resumed")));
}

// The scratch folders sessions of the run made in $TMPDIR for `env`.
std::vector<fs::path> scratch_of(const fs::path& run_dir, const std::string& env) {
  return scratch_dirs_left(fmt::format("dlcbench-{}-{}", env, run_dir.filename().string()));
}

// cgroups named after the run (every container's is named after its instance).
std::vector<std::string> cgroups_of(const fs::path& run_dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator("/sys/fs/cgroup", ec); !ec && it != fs::end(it); it.increment(ec)) {
    if (it.depth() > 2) it.disable_recursion_pending();
    if (it->path().filename().string().find(run_dir.filename().string()) != std::string::npos)
      found.push_back(it->path().string());
  }
  return found;
}

TEST(Resume, AKilledRunIsCompletedInTheSameFolderWithEachLaunchOnce) {
  TempDir dir;
  const fs::path run_dir = start_and_kill(dir, "host", "host");
  EXPECT_EQ(manifest_of(run_dir)["status"], "running");  // SIGKILL: nothing could update it
  // The killed session could not remove its workers' TMPDIR; the resume does.
  EXPECT_EQ(scratch_of(run_dir, "host").size(), 1u);

  auto resumed = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("left to measure (1 cut off"));
  EXPECT_THAT(resumed.out, HasSubstr("fcn5/torch/cpu/b8"));
  expect_complete(run_dir, {"host"});
  EXPECT_THAT(resumed.err, HasSubstr("left in host: " + (fs::temp_directory_path() / "dlcbench-host-").string()));
  EXPECT_EQ(scratch_of(run_dir, "host"), std::vector<fs::path>{});

  // Nothing is left: said, and nothing is appended.
  const auto size = fs::file_size(run_dir / "results.jsonl");
  auto again = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.err, HasSubstr("nothing to resume"));
  EXPECT_EQ(fs::file_size(run_dir / "results.jsonl"), size);
}

// Issue 35 item 16: the runs an earlier session set aside as disturbed are
// replaced by rounds the resumed session adds, as an uninterrupted run
// would have; before, a resume never went past the rounds reached.
TEST(Resume, TheEarlierSessionsDisturbedRunsAreReplacedByAddedRounds) {
  TempDir dir;
  const fs::path out = dir / "res";
  // Other processes busy on every CPU: each launch of the first session is
  // judged disturbed (as in accounting_run_test.cpp).
  testing::BusyCpus busy;
  const pid_t pid = testing::spawn_dlcbench({"run", "--envs", "host", "--runs", "2", "--max-runs", "4", "--warmup",
                                             "0", "--seed", "5", "--out", out.string(), "--", "/bin/sleep", "0.3"},
                                            dir / "log");
  auto launched_in_round_2 = [&] {
    for (const auto& r : records_so_far(out))
      if (r.value("type", "") == "launch" && r.value("round", 0) == 2) return true;
    return false;
  };
  bool caught = false;
  for (int i = 0; i < 24000 && !(caught = launched_in_round_2()); ++i)  // up to about 2 minutes
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  busy.stop();
  ASSERT_TRUE(caught) << "the first session did not reach round 2";
  const fs::path run_dir = testing::only_run_dir(out);
  int disturbed = 0;
  {
    const auto before = testing::run_dlcbench({"report", run_dir.string(), "--format", "json"});
    ASSERT_EQ(before.exit_code, 0) << before.err;
    disturbed = static_cast<int>(json::parse(before.out)["cases"][0]["envs"][0]["disturbed_runs"].size());
  }
  ASSERT_GE(disturbed, 1) << "no launch of the first session was judged disturbed";

  const auto resumed = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("then rounds are added, up to --max-runs 4"));
  EXPECT_THAT(resumed.err, HasSubstr("adding round"));
  const auto manifest = manifest_of(run_dir);
  EXPECT_GT(manifest["rounds"].get<int>(), 2);
  EXPECT_GE(manifest["added_rounds"]["added"].get<int>(), 1);
  std::set<int> rounds_launched;
  for (const auto& r : testing::read_records(run_dir))
    if (r.value("type", "") == "launch" && r.value("ok", false)) rounds_launched.insert(r.value("round", 0));
  EXPECT_GT(*rounds_launched.rbegin(), 2) << "the resume measured no replacement round";
}

TEST(Resume, RefusesAnotherBinaryAnotherPlanOrAFolderWithoutARun) {
  TempDir dir;
  const fs::path run_dir = start_and_kill(dir, "host", "host");
  const auto size = fs::file_size(run_dir / "results.jsonl");

  auto with_flag = testing::run_dlcbench({"run", "--resume", run_dir.string(), "--runs", "5"});
  EXPECT_EQ(with_flag.exit_code, 2);
  EXPECT_THAT(with_flag.err, AllOf(HasSubstr("--runs cannot be given with --resume"), HasSubstr("manifest.json")));
  auto with_envs = testing::run_dlcbench({"run", "--resume", run_dir.string(), "--envs", "host"});
  EXPECT_EQ(with_envs.exit_code, 2);
  EXPECT_THAT(with_envs.err, HasSubstr("--envs cannot be given with --resume"));

  const json original = manifest_of(run_dir);
  json other = original;
  other["orchestrator"]["binary_sha256"] = std::string(64, '0');
  write_json_atomically(run_dir / "manifest.json", other);
  auto other_binary = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  EXPECT_EQ(other_binary.exit_code, 2);
  EXPECT_THAT(other_binary.err, AllOf(HasSubstr(std::string(64, '0')), HasSubstr("same bits")));
  write_json_atomically(run_dir / "manifest.json", original);

  auto no_run = testing::run_dlcbench({"run", "--resume", (dir / "nothing-here").string()});
  EXPECT_EQ(no_run.exit_code, 2);
  EXPECT_THAT(no_run.err, HasSubstr("no manifest.json"));

  EXPECT_EQ(fs::file_size(run_dir / "results.jsonl"), size);  // none of them touched the run
  EXPECT_EQ(manifest_of(run_dir)["status"], "running");
  for (const auto& left : scratch_of(run_dir, "host")) fs::remove_all(left);  // no resume follows
}

// Issue 35, item 14: --pass-env wrote the variable's value (a token, say)
// into the world-readable manifest. Only its name is kept now, and a
// resumed run reads the value again from its own environment.
TEST(Resume, APassedVariableIsReadAgainAndItsValueIsNowhereInTheRunFolder) {
  TempDir dir;
  const std::string secret = fmt::format("s3cr3t-{}", getpid());
  // The command fails unless the value reached it, and prints nothing.
  testing::write_text(dir / "expected", secret);
  const fs::path out = dir / "res";
  const std::vector<std::string> args = {
      "run", "--envs", "host", "--runs", "6", "--warmup", "0", "--workdir", dir.path().string(), "--out",
      out.string(), "--pass-env", "DLCBENCH_TEST_SECRET", "--", "/bin/sh", "-c",
      "test \"$DLCBENCH_TEST_SECRET\" = \"$(cat expected)\" && sleep 0.3"};
  setenv("DLCBENCH_TEST_SECRET", secret.c_str(), 1);
  const pid_t pid = testing::spawn_dlcbench(args, dir / "log");
  const bool launched = testing::wait_until(
      [&] {
        for (const auto& r : records_so_far(out))
          if (r.value("type", "") == "launch") return true;
        return false;
      },
      120);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(launched);
  const fs::path run_dir = testing::only_run_dir(out);

  unsetenv("DLCBENCH_TEST_SECRET");
  auto unset = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  EXPECT_EQ(unset.exit_code, 2);
  EXPECT_THAT(unset.err, HasSubstr("the run passes DLCBENCH_TEST_SECRET to its command (--pass-env), and "
                                   "DLCBENCH_TEST_SECRET is not set here"));
  setenv("DLCBENCH_TEST_SECRET", secret.c_str(), 1);
  auto resumed = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  unsetenv("DLCBENCH_TEST_SECRET");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  int ok = 0;
  for (const auto& r : testing::read_records(run_dir)) {
    if (r.value("type", "") != "launch") continue;
    EXPECT_TRUE(r.value("ok", false)) << r.dump();
    ok += r.value("ok", false);
  }
  EXPECT_EQ(ok, 6);
  for (const auto& file : fs::recursive_directory_iterator(run_dir)) {
    if (!file.is_regular_file()) continue;
    std::ifstream in(file.path(), std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(text.find(secret), std::string::npos) << file.path() << " holds the value";
  }
}

TEST(Resume, AKilledRunWithDockerLeavesNoContainerOrImageAfterTheResume) {
  REQUIRE_RUNTIME("docker");
  TempDir dir;
  const fs::path run_dir = start_and_kill(dir, "host,docker", "docker");
  const json before = manifest_of(run_dir);
  const std::string label = "label=dlcbench.run=" + before["run_id"].get<std::string>();

  // A container the killed session had made and could not remove (created,
  // never started, so it stays whatever the kill did to the others).
  // By the run's own tag: a test running beside this one may remove the
  // shared tag when its run ends, while this run's tag keeps the image.
  const std::string leftover = before["run_id"].get<std::string>() + "-leftover";
  const json& docker_env = before["environments"]["docker"];
  const std::string image = docker_env.value("image_run_tag", std::string()).empty()
                                ? docker_env["image"].get<std::string>()
                                : docker_env["image_run_tag"].get<std::string>();
  auto created = capture_output({"docker", "create", "--name", leftover, "--label",
                                 "dlcbench.run=" + before["run_id"].get<std::string>(), image, "/nothing"},
                                60);
  ASSERT_TRUE(created.result.ok()) << created.result.stderr_tail;

  auto resumed = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("left in docker: " + leftover));
  expect_complete(run_dir, {"host", "docker"});
  EXPECT_THAT(manifest_of(run_dir)["resumed"][0]["leftovers_removed"]["docker"].dump(), HasSubstr(leftover));

  auto left = capture_output({"docker", "ps", "--all", "--quiet", "--filter", label}, 60);
  ASSERT_TRUE(left.result.ok());
  EXPECT_EQ(left.out, "") << "containers of the run remain";
  // An image the killed session imported goes at the end of the resumed one.
  const json docker = before["environments"]["docker"];
  if (docker.value("image_built_by_dlcbench", false) && !docker.value("image_kept_after_run", true)) {
    EXPECT_FALSE(capture_output({"docker", "image", "inspect", docker["image"].get<std::string>()}, 60).result.ok())
        << docker["image"] << " remains";
  }
}

TEST(Resume, AKilledRunInRuncLeavesNoContainerOrFolderAfterTheResume) {
  REQUIRE_RUNTIME("runc");
  TempDir dir;
  // Killed while runc runs a container: runc's child outlives the kill, and
  // the session's folder holds its bundle, state and root file system.
  const fs::path run_dir = start_and_kill(dir, "host,runc", "runc");
  ASSERT_EQ(scratch_of(run_dir, "runc").size(), 1u);
  const fs::path killed_session = scratch_of(run_dir, "runc").front();
  EXPECT_NE(cgroups_of(run_dir), std::vector<std::string>{}) << "the killed session's container is gone already";

  auto resumed = testing::run_dlcbench({"run", "--resume", run_dir.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("left in runc: "));
  EXPECT_THAT(resumed.err, HasSubstr(killed_session.string()));
  expect_complete(run_dir, {"host", "runc"});
  EXPECT_EQ(scratch_of(run_dir, "runc"), std::vector<fs::path>{});
  EXPECT_EQ(scratch_of(run_dir, "host"), std::vector<fs::path>{});
  EXPECT_EQ(cgroups_of(run_dir), std::vector<std::string>{}) << "a container of the run remains";
}

// Issue 35 item 15: a run killed with SIGKILL left its scratch folders, a
// running container and its cgroup until someone resumed it. `doctor
// --clean` finds them by the run id in their names and removes them, and
// leaves a live run's own alone.
TEST(Resume, DoctorCleanRemovesWhatAKilledRunLeftAndNeverALiveRunsOwn) {
  REQUIRE_RUNTIME("runc");
  TempDir dir;
  // Its own $TMPDIR (scratch folders and the marks of live runs): the runs
  // of tests beside it, killed on purpose and awaiting their resume, are
  // theirs to clean. Their containers are left alone too: unmarked here,
  // while another dlcbench (this test's live run) runs.
  struct OwnTemp {
    std::string before;
    explicit OwnTemp(const fs::path& folder) : before(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "") {
      fs::create_directories(folder);
      setenv("TMPDIR", folder.c_str(), 1);
    }
    ~OwnTemp() { before.empty() ? unsetenv("TMPDIR") : setenv("TMPDIR", before.c_str(), 1); }
  } own_temp(dir / "tmp");
  const fs::path killed = start_and_kill(dir, "host,runc", "runc");
  ASSERT_EQ(scratch_of(killed, "runc").size(), 1u);
  ASSERT_EQ(scratch_of(killed, "host").size(), 1u);

  // A live run, measuring while the cleanup runs.
  const fs::path live_out = dir / "live";
  const pid_t live = testing::spawn_dlcbench({"run", "--envs", "host", "--runs", "200", "--warmup", "0", "--out",
                                              live_out.string(), "--", "/bin/sleep", "0.05"},
                                             dir / "live.log");
  std::string live_id;
  for (int i = 0; i < 6000 && (live_id.empty() || scratch_of(live_out / live_id, "host").empty()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code error;
    if (live_id.empty() && fs::is_directory(live_out, error))
      for (const auto& entry : fs::directory_iterator(live_out, error)) live_id = entry.path().filename().string();
  }
  ASSERT_FALSE(live_id.empty()) << "the live run did not start";
  const auto live_scratch = scratch_of(live_out / live_id, "host");
  ASSERT_EQ(live_scratch.size(), 1u);

  // The next run says what the killed one left.
  auto next = testing::run_dlcbench({"run", "--envs", "host", "--runs", "1", "--warmup", "0", "--out",
                                     (dir / "next").string(), "--", "/bin/true"});
  EXPECT_THAT(next.err, HasSubstr("note: runs killed before they could clean up left scratch folders"));
  EXPECT_THAT(next.err, HasSubstr(killed.filename().string()));
  EXPECT_THAT(next.err, Not(HasSubstr(live_id)));

  auto clean = testing::run_dlcbench({"doctor", "--clean"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, HasSubstr(fmt::format("run {} (killed, or ended without cleaning up): removed",
                                               killed.filename().string())));
  EXPECT_THAT(clean.out, HasSubstr(fmt::format("run {} is going on: left alone", live_id)));
  EXPECT_EQ(scratch_of(killed, "runc"), std::vector<fs::path>{});
  EXPECT_EQ(scratch_of(killed, "host"), std::vector<fs::path>{});
  EXPECT_EQ(cgroups_of(killed), std::vector<std::string>{}) << "the killed run's container remains";
  EXPECT_EQ(scratch_of(live_out / live_id, "host"), live_scratch) << "the live run's folder was touched";

  kill(live, SIGINT);
  EXPECT_EQ(testing::exit_status_within(live, 60), 130);
  EXPECT_EQ(scratch_of(live_out / live_id, "host"), std::vector<fs::path>{});
  // Nothing is left to clean now.
  auto again = testing::run_dlcbench({"doctor", "--clean"});
  EXPECT_THAT(again.out, Not(HasSubstr(killed.filename().string())));
}

}  // namespace
}  // namespace dlcbench
