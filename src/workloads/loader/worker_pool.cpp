#include "workloads/loader/worker_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include <fmt/format.h>

namespace dlcbench::loader {
namespace {

constexpr const char* kSegmentPrefix = "dlcbench-loader-";

// The name shm_open takes: "/dlcbench-loader-<token>-<batch>".
std::string segment_path(const std::string& token, std::uint64_t index) {
  return fmt::format("/{}{}-{}", kSegmentPrefix, token, index);
}

bool usable_token(const std::string& token) {
  return !token.empty() && token.size() <= 160 &&
         std::all_of(token.begin(), token.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

// What a worker answers for each batch: one datagram, so a reply is never
// read in parts (SOCK_SEQPACKET keeps message boundaries).
struct Reply {
  std::uint64_t index = 0;
  std::int32_t error_number = 0;  // errno of the call that failed; -1: `fill` threw
  char message[480] = {};
};

void copy_message(Reply& reply, const std::string& text) {
  std::strncpy(reply.message, text.c_str(), sizeof(reply.message) - 1);
}

// Writes batch `index` into a new segment `name`. Returns an empty reply's
// error fields on success. A /dev/shm without room for the pages it touches
// ends this process with SIGBUS inside `fill`, as it does a DataLoader worker.
Reply produce(const std::string& name, std::uint64_t index, std::size_t bytes, const FillBatch& fill) {
  Reply reply;
  reply.index = index;
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    reply.error_number = errno;
    copy_message(reply, fmt::format("shm_open {}: {}", name, std::strerror(errno)));
    return reply;
  }
  void* memory = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    reply.error_number = errno;
    copy_message(reply, fmt::format("ftruncate of {} to {} bytes: {}", name, bytes, std::strerror(errno)));
  } else if ((memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
    reply.error_number = errno;
    copy_message(reply, fmt::format("mmap of {}: {}", name, std::strerror(errno)));
  }
  close(fd);
  if (memory == MAP_FAILED) {
    shm_unlink(name.c_str());
    return reply;
  }
  try {
    fill(index, static_cast<std::byte*>(memory));
  } catch (const std::exception& e) {
    reply.error_number = -1;
    copy_message(reply, e.what());
  }
  munmap(memory, bytes);
  if (reply.error_number != 0) shm_unlink(name.c_str());
  return reply;
}

// A worker process's whole life: batch numbers in, replies out, until the
// training process closes its end or dies.
[[noreturn]] void serve_batches(int socket, pid_t parent, const std::string& token, std::size_t bytes,
                                const FillBatch& fill) {
  // Ended with the training process, as DataLoader's workers are.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  for (;;) {
    std::uint64_t index = 0;
    const ssize_t got = recv(socket, &index, sizeof index, 0);
    if (got == 0) _exit(0);
    if (got != static_cast<ssize_t>(sizeof index)) {
      if (got < 0 && errno == EINTR) continue;
      _exit(3);
    }
    const Reply reply = produce(segment_path(token, index), index, bytes, fill);
    if (send(socket, &reply, sizeof reply, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof reply)) _exit(0);
  }
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* abbreviation = sigabbrev_np(signal);
    return fmt::format("killed by signal {} (SIG{}: {})", signal, abbreviation ? abbreviation : "?",
                       sigdescr_np(signal) ? sigdescr_np(signal) : "unknown");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {:#x}", status);
}

std::vector<std::string> remove_segments(const std::string& token, const std::string& folder) {
  std::vector<std::string> removed;
  if (!usable_token(token)) return removed;
  const std::string prefix = std::string(kSegmentPrefix) + token + "-";
  DIR* dir = opendir(folder.c_str());
  if (!dir) return removed;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) == 0 && unlink((folder + "/" + name).c_str()) == 0) removed.push_back(name);
  }
  closedir(dir);
  return removed;
}

WorkerPool::WorkerPool(const PoolSettings& settings, FillBatch fill) : settings_(settings) {
  std::random_device random;
  token_ = usable_token(settings_.token) ? fmt::format("{}-{}", settings_.token, getpid())
                                         : fmt::format("{}-{:08x}", getpid(), random());
  const pid_t parent = getpid();
  for (int w = 0; w < settings_.workers; ++w) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      const int error = errno;
      stop_workers();  // the destructor does not run for a constructor that throws
      throw BatchFailed(fmt::format("socketpair for loader worker {}: {}", w, std::strerror(error)));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      const int error = errno;
      close(pair[0]);
      close(pair[1]);
      stop_workers();
      throw BatchFailed(fmt::format("fork of loader worker {}: {}", w, std::strerror(error)));
    }
    if (pid == 0) {
      // Only its own end: a worker holding another's would keep that one's
      // socket open after it died, and its death unseen.
      for (int other : sockets_) close(other);
      close(pair[0]);
      serve_batches(pair[1], parent, token_, settings_.batch_bytes, fill);
    }
    close(pair[1]);
    sockets_.push_back(pair[0]);
    pids_.push_back(pid);
  }
}

WorkerPool::~WorkerPool() {
  release_current();
  stop_workers();
  // Asked for and never mapped: written, half written or not begun.
  for (std::uint64_t index = consumed_; index < asked_; ++index) shm_unlink(segment_name(index).c_str());
}

void WorkerPool::stop_workers() {
  // A reaped worker's entry is -1: kill(-1) would signal every process.
  for (pid_t pid : pids_)
    if (pid > 0) kill(pid, SIGKILL);
  for (pid_t pid : pids_) {
    if (pid <= 0) continue;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (int socket : sockets_) close(socket);
  pids_.clear();
  sockets_.clear();
}

std::string WorkerPool::segment_name(std::uint64_t index) const { return segment_path(token_, index); }

std::size_t WorkerPool::in_flight_bytes() const {
  return static_cast<std::size_t>(settings_.workers) * static_cast<std::size_t>(settings_.prefetch) *
         settings_.batch_bytes;
}

void WorkerPool::ask_ahead() {
  const std::uint64_t limit =
      consumed_ + static_cast<std::uint64_t>(settings_.workers) * static_cast<std::uint64_t>(settings_.prefetch);
  for (; asked_ < limit; ++asked_) {
    const auto worker = static_cast<int>(asked_ % static_cast<std::uint64_t>(settings_.workers));
    if (send(sockets_[static_cast<std::size_t>(worker)], &asked_, sizeof asked_, MSG_NOSIGNAL) !=
        static_cast<ssize_t>(sizeof asked_))
      lost(worker, asked_);
  }
}

void WorkerPool::release_current() {
  if (mapped_) munmap(mapped_, mapped_bytes_);
  mapped_ = nullptr;
  mapped_bytes_ = 0;
}

void WorkerPool::lost(int worker, std::uint64_t index) {
  const pid_t pid = pids_[static_cast<std::size_t>(worker)];
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  // Reaped: the destructor's kill and wait must not touch a reused PID.
  if (reaped == pid) pids_[static_cast<std::size_t>(worker)] = -1;
  const std::string how = reaped == pid ? describe_wait_status(status) : "gone (its exit status could not be read)";
  throw WorkerLost(fmt::format("loader worker {} (pid {}) {} before it delivered batch {}", worker, pid, how, index),
                   worker, pid, reaped == pid ? status : 0, index);
}

BatchView WorkerPool::next() {
  release_current();
  ask_ahead();
  const std::uint64_t index = consumed_;
  const auto worker = static_cast<int>(index % static_cast<std::uint64_t>(settings_.workers));
  Reply reply;
  const auto start = std::chrono::steady_clock::now();
  ssize_t got = 0;
  while ((got = recv(sockets_[static_cast<std::size_t>(worker)], &reply, sizeof reply, 0)) < 0 && errno == EINTR) {
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (got <= 0) lost(worker, index);
  if (got != static_cast<ssize_t>(sizeof reply) || reply.index != index)
    throw BatchFailed(fmt::format("loader worker {} answered out of turn (batch {} instead of {})", worker,
                                  reply.index, index));
  if (reply.error_number != 0)
    throw BatchFailed(fmt::format("loader worker {} could not deliver batch {}: {}", worker, index, reply.message));

  const std::string name = segment_name(index);
  const int fd = shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) throw BatchFailed(fmt::format("shm_open {} to read batch {}: {}", name, index, std::strerror(errno)));
  void* memory = mmap(nullptr, settings_.batch_bytes, PROT_READ, MAP_SHARED, fd, 0);
  const int map_error = errno;
  close(fd);
  // Mapped or not, the name goes: the pages live as long as the mapping.
  shm_unlink(name.c_str());
  ++consumed_;
  if (memory == MAP_FAILED)
    throw BatchFailed(fmt::format("mmap of {} for batch {}: {}", name, index, std::strerror(map_error)));
  mapped_ = memory;
  mapped_bytes_ = settings_.batch_bytes;
  return {static_cast<const std::byte*>(memory), settings_.batch_bytes, index, waited};
}

}  // namespace dlcbench::loader
