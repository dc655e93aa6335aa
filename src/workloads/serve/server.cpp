#include "workloads/serve/server.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/timer.h"
#include "workloads/serve/protocol.h"

namespace dlcbench::serve {
namespace {

struct Connection {
  explicit Connection(int descriptor) : fd(descriptor) {}
  ~Connection() { ::close(fd); }
  int fd;
  std::mutex write_lock;  // responses from several inference threads
  bool send(const ResponseHeader& response) {
    std::lock_guard lock(write_lock);
    return write_exact(fd, &response, sizeof response);
  }
};

struct Request {
  std::shared_ptr<Connection> connection;
  std::uint64_t id = 0;
  std::vector<float> input;
  Stopwatch since_arrival;
};

class RequestQueue {
 public:
  void push(Request request) {
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(std::move(request));
    }
    ready_.notify_one();
  }
  // False once closed and empty.
  bool pop(Request& out) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !requests_.empty(); });
    if (requests_.empty()) return false;
    out = std::move(requests_.front());
    requests_.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Request> requests_;
  bool closed_ = false;
};

class Server {
 public:
  Server(const ServerSettings& settings, const Inference& inference, const ServerEvents& events)
      : settings_(settings), inference_(inference), events_(events) {}

  void run() {
    listen_socket();
    for (int t = 0; t < settings_.threads; ++t) inference_threads_.emplace_back([this] { infer_loop(); });
    if (events_.listening) events_.listening(port_, interface_addresses());
    accept_loop();
    // Stop: readers are woken by shutting their sockets down, the inference
    // threads finish what is queued.
    {
      std::lock_guard lock(connections_lock_);
      for (auto& c : connections_)
        if (auto alive = c.lock()) ::shutdown(alive->fd, SHUT_RD);
    }
    for (auto& t : readers_) t.join();
    queue_.close();
    for (auto& t : inference_threads_) t.join();
    ::close(listen_fd_);
    if (shutdown_connection_) shutdown_connection_->send(shutdown_ack_);
  }

 private:
  void listen_socket() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw IoError(fmt::format("serve: socket: {}", std::strerror(errno)));
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(settings_.port);
    if (::inet_pton(AF_INET, settings_.listen_address.c_str(), &address.sin_addr) != 1)
      throw UsageError(fmt::format("serve: {} is not an IPv4 address", settings_.listen_address));
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listen_fd_, 64) != 0)
      throw IoError(fmt::format("serve: cannot listen on {}:{}: {}", settings_.listen_address, settings_.port,
                                std::strerror(errno)));
    socklen_t length = sizeof address;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }

  void accept_loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      const int one = 1;
      // Small messages, answered at once: no Nagle delay on either side.
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto connection = std::make_shared<Connection>(fd);
      std::lock_guard lock(connections_lock_);
      connections_.push_back(connection);
      readers_.emplace_back([this, connection] { read_loop(connection); });
    }
  }

  void read_loop(const std::shared_ptr<Connection>& connection) {
    const std::size_t payload = settings_.input_floats * sizeof(float);
    RequestHeader header;
    while (read_exact(connection->fd, &header, sizeof header)) {
      if (header.magic != kMagic || (header.kind == MessageKind::infer && header.payload_bytes != payload)) break;
      if (header.kind == MessageKind::start_measuring) {
        if (events_.start_measuring) events_.start_measuring();
        connection->send({kMagic, header.kind, header.id, 0, 0, 0, 0});
        continue;
      }
      if (header.kind == MessageKind::shutdown) {
        if (events_.shutdown) events_.shutdown(served_.load());
        // Acknowledged once every thread has stopped (run()).
        shutdown_ack_ = {kMagic, header.kind, header.id, 0, 0, 0, 0};
        shutdown_connection_ = connection;
        stopping_ = true;
        return;
      }
      Request request{connection, header.id, std::vector<float>(settings_.input_floats), {}};
      if (!read_exact(connection->fd, request.input.data(), payload)) break;
      request.since_arrival.restart();
      queue_.push(std::move(request));
    }
  }

  void infer_loop() {
    Request request;
    while (queue_.pop(request)) {
      const double waited = request.since_arrival.seconds();
      Stopwatch compute;
      std::int32_t predicted = -1;
      try {
        predicted = inference_(request.input.data());
      } catch (const std::exception&) {
        predicted = -1;  // the client counts it as failed
      }
      ++served_;
      request.connection->send({kMagic, MessageKind::infer, request.id, static_cast<float>(waited),
                                static_cast<float>(compute.seconds()), predicted, 0});
      request = {};
    }
  }

  ServerSettings settings_;
  const Inference& inference_;
  const ServerEvents& events_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> served_{0};
  RequestQueue queue_;
  std::mutex connections_lock_;
  std::vector<std::weak_ptr<Connection>> connections_;
  std::vector<std::thread> readers_;
  std::vector<std::thread> inference_threads_;
  std::shared_ptr<Connection> shutdown_connection_;
  ResponseHeader shutdown_ack_;
};

}  // namespace

std::vector<std::string> interface_addresses() {
  std::vector<std::string> addresses;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return addresses;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) && std::string(text).rfind("127.", 0) != 0)
      addresses.emplace_back(text);
  }
  ::freeifaddrs(list);
  return addresses;
}

void run_server(const ServerSettings& settings, const Inference& inference, const ServerEvents& events) {
  Server(settings, inference, events).run();
}

}  // namespace dlcbench::serve
