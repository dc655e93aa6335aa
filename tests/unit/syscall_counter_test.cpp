// System calls counted from outside (issue 39): a known number of getppid
// calls, made by a process and by a thread it starts inside the window,
// reads as exactly that number; nothing before the window is counted.
#include "core/syscall_counter.h"

#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "core/errors.h"

namespace dlcbench {
namespace {

void make_getppid_calls(int n) {
  for (int i = 0; i < n; ++i) syscall(SYS_getppid);
}

TEST(SyscallCounter, AKnownNumberOfCallsReadsAsThatNumberThreadsIncluded) {
  int go[2], done[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    make_getppid_calls(500);  // before the window: not counted
    char byte = 0;
    if (read(go[0], &byte, 1) != 1) _exit(1);
    make_getppid_calls(12345);
    std::thread([] { make_getppid_calls(1000); }).join();  // started inside the window: inherited
    if (write(done[1], "x", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  SyscallCounter counter;
  try {
    counter.open({child});
  } catch (const IoError& e) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    GTEST_SKIP() << "this machine does not allow counting system calls: " << e.what();
  }
  ASSERT_EQ(write(go[1], "x", 1), 1);
  char byte = 0;
  ASSERT_EQ(read(done[0], &byte, 1), 1);
  const CallCounts counts = counter.close();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  for (int fd : {go[0], go[1], done[0], done[1]}) close(fd);
  EXPECT_EQ(counts.by_kind.at("getppid"), 13345u);
  // The write that said it was done, the thread's start and end: every call
  // entered in the window is counted. The read that let it go was entered
  // before (it waited there), so it is not.
  EXPECT_GT(counts.syscalls, 13345u);
  EXPECT_LT(counts.syscalls, 13345u + 200u);
  EXPECT_EQ(counts.by_kind.at("read"), 0u);
  EXPECT_GE(counts.by_kind.at("write"), 1u);
  EXPECT_EQ(counts.threads, 1u);
}

}  // namespace
}  // namespace dlcbench
