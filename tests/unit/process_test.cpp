#include "core/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/timer.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(Process, StreamsStdoutLinesAndKeepsStderr) {
  std::vector<std::string> lines;
  ProcessSpec spec{{"sh", "-c", "echo one; echo two; echo oops >&2; printf three"}, {}, 0, nullptr, {}, "", -1};
  auto r = run_process(spec, [&](std::string_view l) { lines.emplace_back(l); });
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(r.stderr_tail, "oops\n");
}

TEST(Process, PassesEnvironmentOverrides) {
  ProcessSpec spec{{"sh", "-c", "echo $DLCBENCH_TEST_VAR"}, {{"DLCBENCH_TEST_VAR", "set-by-test"}}, 0, nullptr, {}, "", -1};
  std::string got;
  run_process(spec, [&](std::string_view l) { got = l; });
  EXPECT_EQ(got, "set-by-test");
}

TEST(Process, ArgumentsAreNotInterpretedByAShell) {
  auto c = capture_output({"echo", "$HOME; rm -rf /nonexistent", "`id`"});
  EXPECT_EQ(c.out, "$HOME; rm -rf /nonexistent `id`\n");
}

TEST(Process, ReportsExitStatusAndSignal) {
  auto exited = capture_output({"sh", "-c", "exit 3"});
  EXPECT_EQ(exited.result.exit_code, 3);
  EXPECT_THAT(exited.result.describe(), HasSubstr("status 3"));
  auto killed = capture_output({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.result.signal, 9);
  EXPECT_THAT(killed.result.describe(), HasSubstr("signal 9"));
}

TEST(Process, MissingProgramIsAClearError) {
  auto c = capture_output({"dlcbench-no-such-program"});
  EXPECT_FALSE(c.result.ok());
  EXPECT_THAT(c.result.describe(), HasSubstr("cannot run dlcbench-no-such-program"));
}

TEST(Process, TimeoutStopsAHungChild) {
  Stopwatch clock;
  auto c = capture_output({"sleep", "30"}, 0.5);
  EXPECT_TRUE(c.result.timed_out);
  EXPECT_FALSE(c.result.ok());
  EXPECT_LT(clock.seconds(), 10);
}

TEST(Process, CancellationStopsTheChild) {
  std::atomic<bool> cancel{true};
  ProcessSpec spec{{"sleep", "30"}, {}, 0, &cancel, {}, "", -1};
  Stopwatch clock;
  auto r = run_process(spec, [](std::string_view) {});
  EXPECT_TRUE(r.cancelled);
  EXPECT_LT(clock.seconds(), 10);
}

TEST(Process, RunsInTheGivenFolderWithAFileAsDescriptor3) {
  testing::TempDir dir;
  const auto file = dir / "scratch";
  testing::write_text(file, "scratch content\n");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ProcessSpec spec{{"sh", "-c", "pwd; cat /proc/self/fd/3"}, {}, 10, nullptr, {}, dir.path().string(), fd};
  std::vector<std::string> lines;
  auto r = run_process(spec, [&](std::string_view l) { lines.emplace_back(l); });
  ::close(fd);
  ASSERT_TRUE(r.ok()) << r.describe() << r.stderr_tail;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], std::filesystem::canonical(dir.path()).string());
  EXPECT_EQ(lines[1], "scratch content");
}

TEST(Process, AMissingWorkingFolderIsAClearError) {
  ProcessSpec spec{{"true"}, {}, 10, nullptr, {}, "/nonexistent/folder", -1};
  auto r = run_process(spec, [](std::string_view) {});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.exec_error, HasSubstr("cannot run true in /nonexistent/folder"));
}

TEST(Process, HiddenFilesReadEmptyInTheChildOnly) {
  testing::TempDir dir;
  testing::write_text(dir / "controllers", "hugetlb\n");
  ProcessSpec spec{{"cat", (dir / "controllers").string()}, {}, 10, nullptr, {(dir / "controllers").string()}, "", -1};
  std::string seen;
  auto r = run_process(spec, [&](std::string_view line) { seen += line; });
  if (r.exec_error.find("cannot hide") != std::string::npos) GTEST_SKIP() << r.exec_error << " (needs CAP_SYS_ADMIN)";
  ASSERT_TRUE(r.ok()) << r.describe() << r.stderr_tail;
  EXPECT_EQ(seen, "");
  auto outside = capture_output({"cat", (dir / "controllers").string()});
  EXPECT_EQ(outside.out, "hugetlb\n");
}

// What a child gets from run_process, however it is started: each of these
// held with fork() and must hold with clone(CLONE_VM | CLONE_VFORK).

TEST(Process, ChildLeadsAProcessGroupOfItsOwn) {
  // $$ is the shell; field 5 of /proc/<pid>/stat is its process group.
  auto c = capture_output({"sh", "-c", "echo $$; cut -d' ' -f5 /proc/$$/stat"});
  ASSERT_TRUE(c.result.ok()) << c.result.describe() << c.result.stderr_tail;
  std::istringstream lines(c.out);
  pid_t pid = 0, group = 0;
  ASSERT_TRUE(lines >> pid >> group) << c.out;
  EXPECT_EQ(group, pid);
  EXPECT_NE(group, getpgrp());
}

// Thrown from on_line to leave run_process while the child still runs.
struct ChildStarted {};

TEST(Process, ChildGetsSigtermWhenTheThreadThatStartedItEnds) {
  // PR_SET_PDEATHSIG: the parent is the thread that started the child. This
  // thread leaves run_process and ends while `sleep 30` runs; the child is
  // then this process's, stopped by the signal, or still sleeping without it.
  pid_t child = 0;
  std::thread starter([&] {
    ProcessSpec spec{{"sh", "-c", "echo $$; exec sleep 30"}, {}, 0, nullptr, {}, "", -1};
    try {
      run_process(spec, [&](std::string_view line) {
        child = std::stoi(std::string(line));
        throw ChildStarted{};
      });
    } catch (const ChildStarted&) {
    }
  });
  starter.join();
  ASSERT_GT(child, 0);
  int status = 0;
  pid_t waited = 0;
  Stopwatch clock;
  while ((waited = waitpid(child, &status, WNOHANG)) == 0 && clock.seconds() < 10) usleep(10'000);
  if (waited == 0) {
    ::kill(-child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child outlived the thread that started it";
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

void handler_that_does_nothing(int) {}

TEST(Process, ThisProcessKeepsItsSignalHandlersAndTheChildGetsNone) {
  // The child's copy of the handler table is reset, not this process's (it
  // would be with CLONE_SIGHAND), and the program runs with SIGTERM's
  // default. (The reset before exec itself cannot be seen from outside: exec
  // resets caught signals too.)
  struct sigaction handler {}, previous {}, after {};
  handler.sa_handler = handler_that_does_nothing;
  sigemptyset(&handler.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &handler, &previous), 0);
  auto c = capture_output({"sh", "-c", "kill -TERM $$"});
  sigaction(SIGTERM, &previous, &after);
  EXPECT_EQ(c.result.signal, SIGTERM) << c.result.describe();
  EXPECT_EQ(after.sa_handler, &handler_that_does_nothing);
}

// A signal set as /proc/<pid>/status shows it: 16 hex digits, signal n as
// bit n - 1.
std::string status_hex(const sigset_t& set) {
  std::uint64_t bits = 0;
  for (int sig = 1; sig <= 64; ++sig)
    if (sigismember(&set, sig) == 1) bits |= std::uint64_t{1} << (sig - 1);
  return fmt::format("{:016x}", bits);
}

TEST(Process, IgnoredSignalsStayIgnoredInTheChild) {
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &ignore, &previous), 0);
  auto c = capture_output({"grep", "SigIgn", "/proc/self/status"});
  sigaction(SIGUSR2, &previous, nullptr);
  ASSERT_TRUE(c.result.ok()) << c.result.describe();
  const auto hex = c.out.substr(c.out.find('\t') + 1, 16);
  EXPECT_NE(std::stoull(hex, nullptr, 16) & (std::uint64_t{1} << (SIGUSR2 - 1)), 0u) << c.out;
}

TEST(Process, ChildStartsWithTheStartingThreadsSignalMask) {
  // run_process blocks every signal around the start; the program must get
  // this thread's own mask, and this thread must get it back.
  sigset_t usr1, before, during;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &before), 0);
  auto c = capture_output({"grep", "SigBlk", "/proc/self/status"});
  pthread_sigmask(SIG_SETMASK, &before, &during);
  sigset_t expected = before;
  sigaddset(&expected, SIGUSR1);
  ASSERT_TRUE(c.result.ok()) << c.result.describe();
  EXPECT_EQ(c.out, "SigBlk:\t" + status_hex(expected) + "\n");
  EXPECT_EQ(status_hex(during), status_hex(expected));
}

TEST(Process, ChildGetsDevNullAsStdinAndNoOtherDescriptorOfOurs) {
  // The descriptors this process leaves open across exec reach every child
  // anyway; any other one in the child is run_process's.
  std::set<std::string> expected = {"0", "1", "2"};
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    const int flags = fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) expected.insert(entry.path().filename().string());
  }
  auto c = capture_output({"sh", "-c", "readlink /proc/$$/fd/0; ls /proc/$$/fd"});
  ASSERT_TRUE(c.result.ok()) << c.result.describe() << c.result.stderr_tail;
  std::istringstream words(c.out);
  std::string stdin_target;
  words >> stdin_target;
  EXPECT_EQ(stdin_target, "/dev/null");
  std::set<std::string> seen;
  for (std::string fd; words >> fd;) seen.insert(fd);
  EXPECT_EQ(seen, expected);
}

TEST(Process, ExecFailuresSayWhy) {
  testing::TempDir dir;
  const auto not_executable = dir / "not-executable";
  testing::write_text(not_executable, "#!/bin/sh\n");
  std::filesystem::permissions(not_executable, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto denied = capture_output({not_executable.string()});
  EXPECT_EQ(denied.result.exec_error, "cannot run " + not_executable.string() + ": " + std::strerror(EACCES));
  auto missing = capture_output({"dlcbench-no-such-program"});
  EXPECT_EQ(missing.result.exec_error, std::string("cannot run dlcbench-no-such-program: ") + std::strerror(ENOENT));
  // And the next start is unaffected.
  auto after = capture_output({"echo", "started"});
  EXPECT_TRUE(after.result.ok()) << after.result.describe();
  EXPECT_EQ(after.out, "started\n");
}

TEST(Process, FindsProgramsOnPath) {
  EXPECT_TRUE(find_program("sh"));
  EXPECT_FALSE(find_program("dlcbench-no-such-program"));
}

}  // namespace
}  // namespace dlcbench
