// Wall-clock interval timer on the monotonic clock, and the time of day.
#pragma once

#include <chrono>

namespace dlcbench {

class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  void restart() { start_ = Clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

// Seconds since the epoch, by the system clock: comparable between processes
// (the nodes of a cluster on one machine), unlike the steady clock.
inline double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace dlcbench
