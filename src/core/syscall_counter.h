// A process's system calls counted from outside, by kind, over a window the
// caller opens and closes: the operation mix an overhead is predicted from
// (issue 39). The kernel's raw_syscalls:sys_enter tracepoint through
// perf_event_open, one counter per thread and kind of call (a tracepoint
// filter on the call's number), inherited by the threads and processes they
// start; page faults and context switches beside them. Nothing is added to
// the counted process's own calls: the kernel counts as it enters them.
//
// It counts what enters the host's kernel: under gVisor that is the
// Sentry's own calls, not the application's, so a sandbox's calls are
// counted another way (runsc --strace).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace dlcbench {

// The paths a counting launch's worker access(2)es (they do not exist) where
// its window opens and closes: the marks a trace of every call
// (runsc --strace) is cut at.
inline constexpr const char* kCountWindowOpen = "/.dlcbench-count-window-open";
inline constexpr const char* kCountWindowClose = "/.dlcbench-count-window-close";

// A kind of call as the cost table knows it, and the system-call numbers
// that make it on this architecture ("read": read, pread64, readv, preadv).
struct CountedCallKind {
  std::string name;
  std::vector<long> numbers;
  std::vector<std::string> call_names;  // the same calls by name, as a trace writes them
};
const std::vector<CountedCallKind>& counted_call_kinds();

struct CallCounts {
  unsigned long long syscalls = 0;  // every call, of any kind
  std::map<std::string, unsigned long long> by_kind;
  // Where the method sees them (the host's kernel); a trace of calls does not.
  bool faults_counted = true;
  unsigned long long page_faults = 0;
  unsigned long long context_switches = 0;
  std::size_t threads = 0;  // counted from the window's start (their children with them)
};

class SyscallCounter {
 public:
  SyscallCounter() = default;
  SyscallCounter(const SyscallCounter&) = delete;
  SyscallCounter& operator=(const SyscallCounter&) = delete;
  ~SyscallCounter();

  // Opens the window on every thread of each process. Throws IoError naming
  // what the machine does not allow (no tracefs, perf_event_open refused)
  // and how to allow it.
  // With `faults_only`, page faults and context switches alone: for
  // gVisor's stub processes, whose calls the host's kernel never sees but
  // whose page faults it takes first (and hands to the Sentry).
  void open(const std::vector<pid_t>& processes, bool faults_only = false);
  // Closes the window: what the threads and their children entered since.
  CallCounts close();

 private:
  struct Counter {
    int fd = -1;
    int kind = -1;  // index into counted_call_kinds(); -1 all calls, -2 page faults, -3 context switches
  };
  std::vector<Counter> counters_;
  std::size_t threads_ = 0;
};

// The kind a call's name belongs to ("pread64" -> "read"), "" for none.
std::string call_kind_of_name(const std::string& name);

// The raw_syscalls:sys_enter tracepoint's id, from tracefs (mounted where
// the kernel puts it, else mounted for the reading on a private folder and
// unmounted after). Throws IoError when it cannot be read.
int sys_enter_tracepoint_id();

}  // namespace dlcbench
