#include "workloads/serve/protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace dlcbench::serve {

bool read_exact(int fd, void* buffer, std::size_t bytes) {
  auto* p = static_cast<char*>(buffer);
  while (bytes > 0) {
    const ssize_t n = ::read(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

bool write_exact(int fd, const void* buffer, std::size_t bytes) {
  const auto* p = static_cast<const char*>(buffer);
  while (bytes > 0) {
    // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE.
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace dlcbench::serve
