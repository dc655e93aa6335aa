// `dlcbench run` losing its terminal or its output, with real runtimes: the
// reader of its output pipe going away (`dlcbench run | head`, or a `tee`
// killed by Ctrl-C), its standard output closed (`>&-`), and its terminal
// hanging up. Each must leave whole results, a manifest that tells the truth
// and nothing of the run behind: no container, image, scratch folder or
// process.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "core/memory.h"
#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::TempDir;
using testing::wait_until;

// host and the container runtimes that start containers here (all of them
// under DLCBENCH_REQUIRE_RUNTIMES=1): the images, bundles and containers a
// lost terminal must not leave behind.
std::string environments() {
  std::string envs = "host";
  for (const std::string name : {"docker", "podman", "runc", "crun", "runsc"})
    if (testing::runtime_problem(name).empty() || testing::runtimes_required()) envs += "," + name;
  return envs;
}

// --no-hold-samples: measured samples stream as batches end, so the test
// sees a launch in the middle of its measured phase.
std::vector<std::string> run_args(const fs::path& out, int iters) {
  return {"run",      "--envs",  environments(), "--workloads", "fcn5", "--data",  "synthetic", "--batch",
          "8",        "--warmup", "1",           "--iters",     std::to_string(iters), "--runs", "1",
          "--threads", "1",      "--no-hold-samples", "--out",  out.string()};
}

using testing::exit_status_within;
using testing::spawn_dlcbench_with;

// Everything of the run that a finished dlcbench must have removed.
void expect_nothing_left(const std::string& run_id) {
  for (const std::string engine : {"docker", "podman"}) {
    if (!find_program(engine)) continue;
    const auto containers =
        capture_output({engine, "ps", "-a", "--filter", "label=dlcbench.run=" + run_id, "--format", "{{.Names}}"}, 60);
    EXPECT_EQ(containers.out, "") << engine << " containers of the run";
    const auto images = capture_output({engine, "images", "--format", "{{.Repository}}:{{.Tag}}"}, 60);
    EXPECT_THAT(images.out, ::testing::Not(::testing::HasSubstr(run_id))) << engine << " images of the run";
  }
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().filename().string().find(run_id), std::string::npos) << "scratch folder " << e.path();
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // A process that ends while this reads fails the read (ESRCH): it reads as
    // empty, as it is gone.
    std::string args = read_small_file(entry.path() / "cmdline");
    EXPECT_EQ(args.find(run_id), std::string::npos) << "process " << name << " of the run still runs";
  }
}

// Whole lines in results.jsonl, the manifest's status, nothing left.
void expect_truthful_and_clean(const fs::path& out, const std::string& status) {
  const fs::path run = testing::only_run_dir(out);
  const auto records = testing::read_records(run);  // fails on a line that is not whole JSON
  EXPECT_FALSE(records.empty());
  const json manifest = json::parse(std::ifstream(run / "manifest.json"));
  EXPECT_EQ(manifest["status"], status);
  expect_nothing_left(run.filename().string());
}

// `dlcbench run 2>&1 | head -4`: the reader goes away while the run measures.
TEST(LostOutput, AClosedOutputPipeStopsTheRunAsCtrlCDoes) {
  TempDir dir;
  const fs::path out = dir / "res";
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = spawn_dlcbench_with(run_args(out, 200), fds[1], fds[1], fds[0]);
  ::close(fds[1]);
  // Read until the first launch has finished, as `head` reads its lines, then go away.
  std::string seen;
  char buf[4096];
  ASSERT_TRUE(wait_until(
      [&] {
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, 100) > 0) {
          const ssize_t n = ::read(fds[0], buf, sizeof buf);
          if (n > 0) seen.append(buf, static_cast<std::size_t>(n));
        }
        return seen.find("round 1/1") != std::string::npos;
      },
      600))
      << seen;
  ::close(fds[0]);
  EXPECT_EQ(exit_status_within(pid, 600), 130);
  expect_truthful_and_clean(out, "interrupted");
}

// `dlcbench run | head -4` with the report on standard output: the pipe is
// closed by the time the report is written, after everything was measured.
TEST(LostOutput, AReportWrittenIntoAClosedPipeLeavesACompletedRun) {
  TempDir dir;
  const fs::path out = dir / "res";
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const int log = ::open((dir / "log").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  const pid_t pid = spawn_dlcbench_with(run_args(out, 2), fds[1], log);
  ::close(fds[1]);
  ::close(fds[0]);
  ::close(log);
  EXPECT_EQ(exit_status_within(pid, 900), 0);
  expect_truthful_and_clean(out, "completed");
}

// `dlcbench run >&-`: descriptor 1 closed, so the next file opened would
// take it; the report must not end up in results.jsonl.
TEST(LostOutput, AClosedStandardOutputLeavesTheFilesIntact) {
  TempDir dir;
  const fs::path out = dir / "res";
  const int log = ::open((dir / "log").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  const pid_t pid = spawn_dlcbench_with(run_args(out, 2), -1, log);
  ::close(log);
  EXPECT_EQ(exit_status_within(pid, 900), 0);
  expect_truthful_and_clean(out, "completed");
  std::ifstream results(testing::only_run_dir(out) / "results.jsonl");
  std::string text((std::istreambuf_iterator<char>(results)), {});
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("s/batch; statistics over runs")));
}

// The terminal hangs up (an ssh session drops): its controlling process gets
// SIGHUP and every later write to the terminal fails.
TEST(LostOutput, ATerminalThatHangsUpStopsTheRunAndCleansUp) {
  TempDir dir;
  const fs::path out = dir / "res";
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  fcntl(master, F_SETFD, FD_CLOEXEC);
  std::vector<std::string> argv = {DLCBENCH_BINARY};
  for (const auto& a : run_args(out, 200)) argv.push_back(a);
  std::vector<char*> c;
  for (auto& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    // A session of its own whose controlling terminal is the pty, as a login shell's.
    setsid();
    ioctl(slave, TIOCSCTTY, 0);
    for (int fd = 0; fd <= 2; ++fd) dup2(slave, fd);
    if (slave > 2) ::close(slave);
    execv(c[0], c.data());
    _exit(127);
  }
  ::close(slave);
  // Drain what it writes, so the terminal never blocks it, until it measures in a container.
  const std::string last_env = environments().substr(environments().rfind(',') + 1);
  char buf[4096];
  ASSERT_TRUE(wait_until(
      [&] {
        pollfd p{master, POLLIN, 0};
        while (poll(&p, 1, 0) > 0 && ::read(master, buf, sizeof buf) > 0) {
        }
        return testing::has_sample(out, last_env);
      },
      600));
  ::close(master);  // the hang-up
  EXPECT_EQ(exit_status_within(pid, 600), 130);
  expect_truthful_and_clean(out, "interrupted");
}

}  // namespace
}  // namespace dlcbench
