#include "workloads/micro/syscall_cost.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/timer.h"

namespace dlcbench {
namespace {

long futex(std::atomic<int>* word, int op, int value) {
  return syscall(SYS_futex, reinterpret_cast<int*>(word), op, value, nullptr, nullptr, 0);
}

// Two threads that hand a turn back and forth, through a futex or a pipe:
// one round trip is one "call" of the variant.
class PingPong {
 public:
  explicit PingPong(bool through_pipe) : pipe_(through_pipe) {
    if (pipe_ && (::pipe2(there_, O_CLOEXEC) != 0 || ::pipe2(back_, O_CLOEXEC) != 0))
      throw IoError(fmt::format("syscall/pipe: pipe: {}", std::strerror(errno)));
    partner_ = std::thread([this] { answer(); });
  }
  ~PingPong() {
    stop_ = true;
    if (pipe_) {
      char byte = 0;
      [[maybe_unused]] auto n = ::write(there_[1], &byte, 1);
    } else {
      turn_.store(1);
      futex(&turn_, FUTEX_WAKE_PRIVATE, 1);
    }
    partner_.join();
    for (int fd : {there_[0], there_[1], back_[0], back_[1]})
      if (fd >= 0) ::close(fd);
  }
  void round_trip() {
    if (pipe_) {
      char byte = 1;
      if (::write(there_[1], &byte, 1) != 1 || ::read(back_[0], &byte, 1) != 1)
        throw IoError(fmt::format("syscall/pipe: {}", std::strerror(errno)));
      return;
    }
    turn_.store(1);
    futex(&turn_, FUTEX_WAKE_PRIVATE, 1);
    while (turn_.load() == 1) futex(&turn_, FUTEX_WAIT_PRIVATE, 1);
  }

 private:
  void answer() {
    for (;;) {
      if (pipe_) {
        char byte = 0;
        if (::read(there_[0], &byte, 1) != 1 || stop_) return;
        if (::write(back_[1], &byte, 1) != 1) return;
        continue;
      }
      while (turn_.load() == 0) futex(&turn_, FUTEX_WAIT_PRIVATE, 0);
      if (stop_) return;
      turn_.store(0);
      futex(&turn_, FUTEX_WAKE_PRIVATE, 1);
    }
  }

  bool pipe_;
  int there_[2] = {-1, -1}, back_[2] = {-1, -1};
  std::atomic<int> turn_{0};
  std::atomic<bool> stop_{false};
  std::thread partner_;
};

class SyscallCost final : public MicroBenchmark {
 public:
  SyscallCost(std::string variant, int calls) : variant_(std::move(variant)), calls_(calls) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    if (variant_ == "read" || variant_ == "write") {
      fd_ = ::open(variant_ == "read" ? "/dev/zero" : "/dev/null", (variant_ == "read" ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      if (fd_ < 0) throw IoError(fmt::format("syscall/{}: cannot open its device: {}", variant_, std::strerror(errno)));
    }
    if (variant_ == "futex" || variant_ == "pipe") ping_ = std::make_unique<PingPong>(variant_ == "pipe");
  }
  ~SyscallCost() override {
    if (fd_ >= 0) ::close(fd_);
  }

  nlohmann::json describe() const override {
    return {{"benchmark", "syscall"}, {"variant", variant_}, {"calls_per_operation", calls_}, {"page_bytes", page_}};
  }

  MicroResult run() override {
    if (variant_ == "fault") return touch_fresh_pages();
    Stopwatch clock;
    for (int i = 0; i < calls_; ++i) call();
    MicroResult r;
    r.seconds = clock.seconds();
    r.work = calls_;
    return r;
  }

 private:
  void call() {
    char byte = 0;
    if (variant_ == "null") {
      if (syscall(SYS_getppid) < 0) fail();
    } else if (variant_ == "clock") {
      timespec t{};
      if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t) != 0) fail();
    } else if (variant_ == "read") {
      if (::read(fd_, &byte, 1) != 1) fail();
    } else if (variant_ == "write") {
      if (::write(fd_, &byte, 1) != 1) fail();
    } else if (variant_ == "openclose") {
      const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::close(fd) != 0) fail();
    } else if (variant_ == "stat") {
      struct stat st {};
      if (::stat("/dev/null", &st) != 0) fail();
    } else if (variant_ == "mmap") {
      void* p = ::mmap(nullptr, page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) fail();
      static_cast<volatile char*>(p)[0] = 1;  // the first touch: a page fault
      if (::munmap(p, page_) != 0) fail();
    } else if (variant_ == "futex" || variant_ == "pipe") {
      ping_->round_trip();
    } else if (variant_ == "yield") {
      if (sched_yield() != 0) fail();
    }
  }
  // One mapping of `calls_` pages, each touched once, and unmapped: a page
  // fault per page as a workload takes them when it fills a fresh buffer
  // (a large allocation the allocator maps and returns each step). Under
  // gVisor most such faults the host's kernel resolves against the
  // sandbox's memory file, a few the Sentry itself: what one costs on
  // average is what this measures, unlike the mmap kind's lone page.
  MicroResult touch_fresh_pages() {
    const std::size_t bytes = page_ * static_cast<std::size_t>(calls_);
    Stopwatch clock;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail();
    auto* bytes_at = static_cast<volatile char*>(p);
    for (std::size_t offset = 0; offset < bytes; offset += page_) bytes_at[offset] = 1;
    if (::munmap(p, bytes) != 0) fail();
    MicroResult r;
    r.seconds = clock.seconds();
    r.work = calls_;
    return r;
  }

  [[noreturn]] void fail() const {
    throw ValidationError(fmt::format("syscall/{}: the call failed: {}", variant_, std::strerror(errno)));
  }

  std::string variant_;
  int calls_;
  std::size_t page_ = 4096;
  int fd_ = -1;
  std::unique_ptr<PingPong> ping_;
};

// The whole family in one launch: each operation runs every kind in turn,
// an equal share of the calls each, and says what a call of each cost.
class SyscallTable final : public MicroBenchmark {
 public:
  SyscallTable() {
    const int calls = kSyscallCallsPerOperation / static_cast<int>(syscall_kinds().size());
    for (const auto& kind : syscall_kinds()) kinds_.push_back(std::make_unique<SyscallCost>(kind, calls));
  }
  nlohmann::json describe() const override {
    return {{"benchmark", "syscall"},
            {"variant", kSyscallTable},
            {"kinds", syscall_kinds()},
            {"calls_per_operation", kSyscallCallsPerOperation}};
  }
  MicroResult run() override {
    MicroResult r;
    nlohmann::json ns = nlohmann::json::object();
    for (std::size_t k = 0; k < kinds_.size(); ++k) {
      const MicroResult one = kinds_[k]->run();
      ns[syscall_kinds()[k]] = one.seconds * 1e9 / one.work;
      r.seconds += one.seconds;
      r.work += one.work;
    }
    r.detail = {{"ns_per_call", std::move(ns)}};
    return r;
  }

 private:
  std::vector<std::unique_ptr<SyscallCost>> kinds_;
};

}  // namespace

const std::vector<std::string>& syscall_kinds() {
  static const std::vector<std::string> all = {"null", "clock", "read",  "write", "openclose", "stat",
                                               "mmap", "fault", "futex", "yield", "pipe"};
  return all;
}

const std::vector<std::string>& syscall_variants() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v{kSyscallTable};
    v.insert(v.end(), syscall_kinds().begin(), syscall_kinds().end());
    return v;
  }();
  return all;
}

std::unique_ptr<MicroBenchmark> make_syscall_cost(const MicroParams& params) {
  if (params.variant == kSyscallTable) return std::make_unique<SyscallTable>();
  const auto& all = syscall_variants();
  if (std::find(all.begin(), all.end(), params.variant) == all.end())
    throw UsageError(fmt::format("syscall/{}: valid variants are {}", params.variant, fmt::join(all, ", ")));
  return std::make_unique<SyscallCost>(params.variant, kSyscallCallsPerOperation);
}

}  // namespace dlcbench
