#include "core/machine_turn.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/timer.h"

namespace dlcbench {
namespace {

// Binds the abstract name (a leading NUL, no file); -1 while another holds it.
int try_bind(const std::string& name) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(fmt::format("the machine's turn: socket(): {}", std::strerror(errno)));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::size_t length = std::min(name.size(), sizeof(address.sun_path) - 1);
  std::memcpy(address.sun_path + 1, name.data(), length);
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), size) == 0) return fd;
  const int error = errno;
  close(fd);
  if (error != EADDRINUSE) throw std::runtime_error(fmt::format("the machine's turn: bind(): {}", std::strerror(error)));
  return -1;
}

}  // namespace

MachineTurn::MachineTurn(const std::atomic<bool>* cancel, const std::string& name) {
  Stopwatch clock;
  // Polled: a holder's launch takes seconds, so 20 ms of waiting more is
  // nothing, and the waiter uses no CPU the holder would miss.
  while ((fd_ = try_bind(name)) < 0) {
    if (cancel && cancel->load()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  waited_ = clock.seconds();
}

MachineTurn::~MachineTurn() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace dlcbench
