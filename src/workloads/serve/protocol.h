// The wire format between the load generator (on the host) and the
// inference server (in the environment): fixed-size headers in the host's
// byte order (both ends run on the same machine), then the request's input.
// Requests on one connection may be answered out of order: each response
// names its request.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlcbench::serve {

inline constexpr std::uint32_t kMagic = 0x56434c44;  // "DLCV"

enum class MessageKind : std::uint32_t {
  infer = 1,            // run the network on the payload (input_floats floats)
  start_measuring = 2,  // the warm-up is over: the server starts its measured phase
  shutdown = 3,         // the last response has arrived: end the measured phase and stop
};

struct RequestHeader {
  std::uint32_t magic = kMagic;
  MessageKind kind = MessageKind::infer;
  std::uint64_t id = 0;
  std::uint32_t payload_bytes = 0;
  std::uint32_t reserved = 0;
};

struct ResponseHeader {
  std::uint32_t magic = kMagic;
  MessageKind kind = MessageKind::infer;
  std::uint64_t id = 0;
  // The server's own view of the request: waiting for a free inference
  // thread, and the forward pass.
  float queue_seconds = 0;
  float compute_seconds = 0;
  std::int32_t predicted = 0;  // the class (or next word) with the highest score; -1: the inference failed
  std::uint32_t reserved = 0;
};

static_assert(sizeof(RequestHeader) == 24);
static_assert(sizeof(ResponseHeader) == 32);

// Whole buffers over a stream socket, retried on EINTR and short transfers:
// false at end of stream or on an error (errno says which).
bool read_exact(int fd, void* buffer, std::size_t bytes);
bool write_exact(int fd, const void* buffer, std::size_t bytes);

}  // namespace dlcbench::serve
