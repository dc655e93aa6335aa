#include "core/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

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

TEST(Process, FindsProgramsOnPath) {
  EXPECT_TRUE(find_program("sh"));
  EXPECT_FALSE(find_program("dlcbench-no-such-program"));
}

}  // namespace
}  // namespace dlcbench
