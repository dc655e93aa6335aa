// The client side of the serving workload, run on the host: it sends
// inference requests to the server over TCP and times each one from the
// moment it was due to the moment its answer arrived.
//
// Open loop (rate > 0): requests are due at a fixed rate whatever the server
// does, as users arrive; a request's latency counts from when it was due,
// not from when it could be sent, so a stalled server is not hidden by a
// generator that waits for it (coordinated omission, as wrk2 avoids).
// Closed loop (rate == 0): `connections` clients each send their next
// request when the last one's answer arrives.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dlcbench::serve {

struct LoadSettings {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  int connections = 2;
  double rate = 0;  // requests per second; 0: closed loop
  int warmup = 100;
  int requests = 1000;  // measured, after the warm-up
  std::size_t input_floats = 0;
  std::uint64_t seed = 42;
  double timeout_seconds = 60;  // for connecting, and for the whole load
};

struct RequestTiming {
  double seconds = 0;  // due (open) or sent (closed) to answered
  float queue_seconds = 0, compute_seconds = 0;  // the server's part
  bool warmup = false;
  bool failed = false;  // the server answered that its inference failed
};

struct LoadResult {
  std::vector<RequestTiming> requests;  // by request number: warm-up first
  double measured_seconds = 0;  // from the first measured request's due time to the last answer
  // Open loop: requests sent more than a millisecond after they were due,
  // because the generator itself fell behind (the machine was too busy).
  int late_sends = 0;
};

// Sends warmup + requests requests, then shuts the server down. Throws
// IoError when it cannot connect, a connection breaks or the time runs out.
LoadResult generate_load(const LoadSettings& settings);

}  // namespace dlcbench::serve
