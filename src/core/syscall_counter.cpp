#include "core/syscall_counter.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"

namespace dlcbench {
namespace {

namespace counter_fs = std::filesystem;

int perf_event_open(perf_event_attr& attr, pid_t tid) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::optional<int> id_at(const counter_fs::path& tracefs) {
  const std::string text = read_small_file(tracefs / "events/raw_syscalls/sys_enter/id");
  try {
    if (!text.empty()) return std::stoi(text);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The threads of a process now (its /proc/PID/task).
std::vector<pid_t> threads_of(pid_t process) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : counter_fs::directory_iterator(fmt::format("/proc/{}/task", process), ec)) {
    try {
      out.push_back(static_cast<pid_t>(std::stol(entry.path().filename().string())));
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::string filter_of(const CountedCallKind& kind) {
  std::string filter;
  for (long number : kind.numbers) filter += fmt::format("{}id == {}", filter.empty() ? "" : " || ", number);
  return filter;
}

}  // namespace

const std::vector<CountedCallKind>& counted_call_kinds() {
  // The numbers this architecture has: aarch64 has no open(2) nor stat(2).
  static const std::vector<CountedCallKind> kinds = [] {
    std::vector<CountedCallKind> k = {
        {"getppid", {SYS_getppid}, {"getppid"}},
        {"clock_gettime", {SYS_clock_gettime, SYS_gettimeofday}, {"clock_gettime", "gettimeofday"}},
        {"read", {SYS_read, SYS_pread64, SYS_readv, SYS_preadv}, {"read", "pread64", "readv", "preadv"}},
        {"write", {SYS_write, SYS_pwrite64, SYS_writev, SYS_pwritev}, {"write", "pwrite64", "writev", "pwritev"}},
        {"open", {SYS_openat}, {"openat", "open"}},
        {"close", {SYS_close}, {"close"}},
        {"stat", {SYS_fstat, SYS_newfstatat, SYS_statx}, {"fstat", "newfstatat", "statx", "stat", "lstat"}},
        {"mmap", {SYS_mmap, SYS_munmap}, {"mmap", "munmap"}},
        {"futex", {SYS_futex}, {"futex"}},
        {"sched_yield", {SYS_sched_yield}, {"sched_yield"}},
    };
#ifdef SYS_open
    k[4].numbers.push_back(SYS_open);
#endif
#ifdef SYS_stat
    k[6].numbers.push_back(SYS_stat);
    k[6].numbers.push_back(SYS_lstat);
#endif
    return k;
  }();
  return kinds;
}

std::string call_kind_of_name(const std::string& name) {
  for (const auto& k : counted_call_kinds())
    if (std::find(k.call_names.begin(), k.call_names.end(), name) != k.call_names.end()) return k.name;
  return "";
}

int sys_enter_tracepoint_id() {
  static std::mutex mutex;
  static std::optional<int> cached;
  std::lock_guard lock(mutex);
  if (cached) return *cached;
  for (const char* where : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (const auto id = id_at(where)) return *(cached = id);
  // tracefs not mounted: mounted here for the reading, on a folder of our
  // own, and taken away again, so the machine is left as it was.
  char folder[] = "/tmp/dlcbench-tracefs.XXXXXX";
  if (!mkdtemp(folder)) throw IoError(fmt::format("cannot make a folder to mount tracefs on: {}", std::strerror(errno)));
  if (mount("nodev", folder, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr) != 0) {
    const int error = errno;
    rmdir(folder);
    throw IoError(fmt::format("tracefs is not mounted and cannot be ({}): counting system calls needs the "
                              "raw_syscalls tracepoint; run as root, or mount tracefs at /sys/kernel/tracing",
                              std::strerror(error)));
  }
  const auto id = id_at(folder);
  umount2(folder, MNT_DETACH);
  rmdir(folder);
  if (!id)
    throw IoError("the kernel has no raw_syscalls:sys_enter tracepoint (CONFIG_FTRACE_SYSCALLS): system calls "
                  "cannot be counted on this machine");
  return *(cached = id);
}

SyscallCounter::~SyscallCounter() {
  for (const auto& c : counters_) ::close(c.fd);
}

void SyscallCounter::open(const std::vector<pid_t>& processes, bool faults_only) {
  const int tracepoint = faults_only ? 0 : sys_enter_tracepoint_id();
  const auto& kinds = counted_call_kinds();
  const auto add = [&](pid_t tid, std::uint32_t type, std::uint64_t config, int kind, const std::string& filter) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.inherit = 1;  // the threads and processes it starts from now on
    attr.disabled = 1;
    const int fd = perf_event_open(attr, tid);
    if (fd < 0) {
      if (errno == ESRCH) return;  // the thread ended meanwhile
      throw IoError(fmt::format("perf_event_open refused to count thread {}'s system calls ({}): run as root, or "
                                "lower kernel.perf_event_paranoid to -1",
                                tid, std::strerror(errno)));
    }
    counters_.push_back({fd, kind});
    if (!filter.empty() && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter.c_str()) != 0)
      throw IoError(fmt::format("the kernel refused the tracepoint filter '{}': {}", filter, std::strerror(errno)));
  };
  for (pid_t process : processes)
    for (pid_t tid : threads_of(process)) {
      ++threads_;
      if (!faults_only) {
        add(tid, PERF_TYPE_TRACEPOINT, static_cast<std::uint64_t>(tracepoint), -1, "");
        for (std::size_t k = 0; k < kinds.size(); ++k)
          add(tid, PERF_TYPE_TRACEPOINT, static_cast<std::uint64_t>(tracepoint), static_cast<int>(k),
              filter_of(kinds[k]));
      }
      add(tid, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -2, "");
      add(tid, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, -3, "");
    }
  if (threads_ == 0) throw IoError("no thread of the counted processes was left to count");
  // Enabled together, after every one is open: the window opens once.
  for (const auto& c : counters_) ioctl(c.fd, PERF_EVENT_IOC_ENABLE, 0);
}

CallCounts SyscallCounter::close() {
  for (const auto& c : counters_) ioctl(c.fd, PERF_EVENT_IOC_DISABLE, 0);
  CallCounts counts;
  counts.threads = threads_;
  const auto& kinds = counted_call_kinds();
  for (const auto& k : kinds) counts.by_kind[k.name] = 0;
  for (const auto& c : counters_) {
    std::uint64_t value = 0;
    if (::read(c.fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) {
      const int error = errno;
      for (const auto& rest : counters_) ::close(rest.fd);
      counters_.clear();
      throw IoError(fmt::format("a system-call counter could not be read: {}", std::strerror(error)));
    }
    if (c.kind >= 0) counts.by_kind[kinds[static_cast<std::size_t>(c.kind)].name] += value;
    else if (c.kind == -1) counts.syscalls += value;
    else if (c.kind == -2) counts.page_faults += value;
    else counts.context_switches += value;
    ::close(c.fd);
  }
  counters_.clear();
  threads_ = 0;
  return counts;
}

}  // namespace dlcbench
