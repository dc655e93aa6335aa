#include "workloads/serve/load_generator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/errors.h"
#include "workloads/serve/protocol.h"

namespace dlcbench::serve {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

class Socket {
 public:
  Socket(const LoadSettings& s) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(s.port);
    if (::inet_pton(AF_INET, s.address.c_str(), &address.sin_addr) != 1)
      throw UsageError(fmt::format("serve: {} is not an IPv4 address", s.address));
    // The server may still be starting its listener's threads: retry a
    // refused connection for a while.
    const Clock::time_point give_up =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(s.timeout_seconds, 30.0)));
    for (;;) {
      fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) throw IoError(fmt::format("serve: socket: {}", std::strerror(errno)));
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) break;
      const int error = errno;
      ::close(fd_);
      if (Clock::now() > give_up)
        throw IoError(fmt::format("serve: cannot connect to the server at {}:{}: {}", s.address, s.port,
                                  std::strerror(error)));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

  void send(MessageKind kind, std::uint64_t id, const std::vector<float>* input) {
    RequestHeader header{kMagic, kind, id, input ? static_cast<std::uint32_t>(input->size() * sizeof(float)) : 0u, 0};
    std::lock_guard lock(write_lock_);
    if (!write_exact(fd_, &header, sizeof header) ||
        (input && !write_exact(fd_, input->data(), input->size() * sizeof(float))))
      throw IoError(fmt::format("serve: the connection to the server broke while sending: {}", std::strerror(errno)));
  }
  // Waits at most until `deadline` for the next response.
  ResponseHeader receive(Clock::time_point deadline) {
    ResponseHeader response;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) throw IoError("serve: the server did not answer in time");
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) > 0) break;
    }
    if (!read_exact(fd_, &response, sizeof response) || response.magic != kMagic)
      throw IoError("serve: the server closed the connection or answered with something else (did it crash?)");
    return response;
  }

 private:
  int fd_ = -1;
  std::mutex write_lock_;
};

std::vector<std::vector<float>> make_inputs(const LoadSettings& s) {
  // A few distinct inputs, seeded, so every environment gets the same ones.
  std::mt19937_64 rng(s.seed);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  std::vector<std::vector<float>> inputs(16, std::vector<float>(s.input_floats));
  for (auto& input : inputs)
    for (auto& x : input) x = value(rng);
  return inputs;
}

void record(RequestTiming& timing, const ResponseHeader& response, double seconds, bool warmup) {
  timing.seconds = seconds;
  timing.queue_seconds = response.queue_seconds;
  timing.compute_seconds = response.compute_seconds;
  timing.warmup = warmup;
  timing.failed = response.predicted < 0;
}

// Rethrows the first error any thread met.
class FirstError {
 public:
  void keep(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = e;
    failed_ = true;
  }
  bool failed() const { return failed_; }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

LoadResult open_loop(const LoadSettings& s, std::vector<std::unique_ptr<Socket>>& sockets,
                     Clock::time_point deadline) {
  const int total = s.warmup + s.requests;
  const auto inputs = make_inputs(s);
  LoadResult result;
  result.requests.resize(static_cast<std::size_t>(total));
  std::vector<Clock::time_point> due(static_cast<std::size_t>(total));
  const auto interval = std::chrono::duration<double>(1.0 / s.rate);
  const auto start = Clock::now() + std::chrono::milliseconds(10);
  for (int i = 0; i < total; ++i)
    due[static_cast<std::size_t>(i)] = start + std::chrono::duration_cast<Clock::duration>(interval * i);
  // Each connection's answers are read by a thread of its own.
  const int n = static_cast<int>(sockets.size());
  FirstError error;
  std::vector<std::thread> readers;
  for (int c = 0; c < n; ++c)
    readers.emplace_back([&, c] {
      try {
        // Connection c carries requests c, c + n, ..., and connection 0 the
        // start_measuring message too.
        int expected = (total - c + n - 1) / n + (c == 0 ? 1 : 0);
        for (; expected > 0 && !error.failed(); --expected) {
          const ResponseHeader response = sockets[static_cast<std::size_t>(c)]->receive(deadline);
          const auto now = Clock::now();
          if (response.kind != MessageKind::infer) continue;
          if (response.id >= static_cast<std::uint64_t>(total)) throw IoError("serve: an answer to no request");
          const auto i = static_cast<std::size_t>(response.id);
          record(result.requests[i], response, seconds_between(due[i], now), static_cast<int>(i) < s.warmup);
        }
      } catch (...) {
        error.keep(std::current_exception());
      }
    });
  try {
    for (int i = 0; i < total && !error.failed(); ++i) {
      const auto when = due[static_cast<std::size_t>(i)];
      std::this_thread::sleep_until(when);
      if (Clock::now() - when > std::chrono::milliseconds(1) && i >= s.warmup) ++result.late_sends;
      if (i == s.warmup) sockets[0]->send(MessageKind::start_measuring, static_cast<std::uint64_t>(i), nullptr);
      sockets[static_cast<std::size_t>(i % n)]->send(MessageKind::infer, static_cast<std::uint64_t>(i),
                                                     &inputs[static_cast<std::size_t>(i) % inputs.size()]);
    }
  } catch (...) {
    error.keep(std::current_exception());
  }
  for (auto& t : readers) t.join();
  error.rethrow();
  const auto last = Clock::now();
  result.measured_seconds = seconds_between(due[static_cast<std::size_t>(s.warmup)], last);
  return result;
}

LoadResult closed_loop(const LoadSettings& s, std::vector<std::unique_ptr<Socket>>& sockets,
                       Clock::time_point deadline) {
  const int total = s.warmup + s.requests;
  const auto inputs = make_inputs(s);
  LoadResult result;
  result.requests.resize(static_cast<std::size_t>(total));
  std::atomic<int> next{0};
  std::mutex first_lock;
  Clock::time_point first_measured{};
  FirstError error;
  std::vector<std::thread> clients;
  for (std::size_t c = 0; c < sockets.size(); ++c)
    clients.emplace_back([&, c] {
      Socket& socket = *sockets[c];
      try {
        for (int i = next++; i < total && !error.failed(); i = next++) {
          if (i == s.warmup) {
            // One client tells the server; the rest of the measured requests
            // follow it.
            socket.send(MessageKind::start_measuring, static_cast<std::uint64_t>(i), nullptr);
            socket.receive(deadline);
            {
              std::lock_guard lock(first_lock);
              first_measured = Clock::now();
            }
          }
          const auto sent = Clock::now();
          socket.send(MessageKind::infer, static_cast<std::uint64_t>(i), &inputs[static_cast<std::size_t>(i) % inputs.size()]);
          const ResponseHeader response = socket.receive(deadline);
          record(result.requests[static_cast<std::size_t>(i)], response, seconds_between(sent, Clock::now()),
                 i < s.warmup);
        }
      } catch (...) {
        error.keep(std::current_exception());
      }
    });
  for (auto& t : clients) t.join();
  error.rethrow();
  result.measured_seconds = seconds_between(first_measured, Clock::now());
  return result;
}

}  // namespace

LoadResult generate_load(const LoadSettings& s) {
  if (s.connections < 1 || s.requests < 1 || s.warmup < 0 || s.rate < 0 || s.input_floats == 0)
    throw UsageError("serve: the load needs at least one connection, one request and an input");
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.timeout_seconds));
  std::vector<std::unique_ptr<Socket>> sockets;
  for (int c = 0; c < s.connections; ++c) sockets.push_back(std::make_unique<Socket>(s));
  LoadResult result = s.rate > 0 ? open_loop(s, sockets, deadline) : closed_loop(s, sockets, deadline);
  // Every answer is in: the server ends its measured phase and stops.
  sockets[0]->send(MessageKind::shutdown, 0, nullptr);
  sockets[0]->receive(deadline + std::chrono::seconds(30));
  return result;
}

}  // namespace dlcbench::serve
