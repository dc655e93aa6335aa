// An inference server as a deployment runs one: connections are read by a
// thread each, requests wait in one queue, and `threads` inference threads
// take them in arrival order (batch 1, no batching), so a request that
// arrives while every thread is busy waits: that is what the latency's tail
// is made of. The network is a function; the server knows nothing of it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dlcbench::serve {

// One forward pass on `input` (input_floats values); returns the predicted
// class. Called from several threads at once.
using Inference = std::function<std::int32_t(const float* input)>;

struct ServerSettings {
  int threads = 2;
  std::string listen_address = "127.0.0.1";  // "0.0.0.0" in a network namespace of its own
  std::uint16_t port = 0;                     // 0: any free port
  std::size_t input_floats = 0;
};

// What the server tells its caller, from the thread that saw it.
struct ServerEvents {
  // Listening: the port, and the IPv4 addresses of this network namespace's
  // interfaces other than loopback (where a client outside can reach it).
  std::function<void(std::uint16_t port, const std::vector<std::string>& addresses)> listening;
  std::function<void()> start_measuring;
  // Before the shutdown is acknowledged, so the caller's last lines come
  // before the client sees the end.
  std::function<void(std::uint64_t requests_served)> shutdown;
};

// Serves until a client sends shutdown. Throws IoError when it cannot listen.
void run_server(const ServerSettings& settings, const Inference& inference, const ServerEvents& events);

// This network namespace's IPv4 addresses, loopback left out.
std::vector<std::string> interface_addresses();

}  // namespace dlcbench::serve
