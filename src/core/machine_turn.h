// Launches that take turns on one machine: several dlcbench runs on the
// same machine (the nodes of a test cluster, which share it) would each
// measure the others' load. A run started with --take-turns holds the
// machine's turn for the whole of each launch, so no two such launches
// overlap. The turn is an abstract Unix socket name bound by the holder:
// it leaves no file behind, and the kernel frees it when the holder dies,
// however it dies.
#pragma once

#include <atomic>
#include <string>

namespace dlcbench {

// The socket name every dlcbench on the machine (its network namespace)
// waits for.
inline constexpr const char* kMachineTurnName = "dlcbench-machine-turn";

class MachineTurn {
 public:
  // Waits until no other holder has the turn, then holds it. Returns early,
  // without the turn, when `cancel` is set (held() is then false). Throws
  // std::runtime_error if no socket can be made.
  explicit MachineTurn(const std::atomic<bool>* cancel = nullptr, const std::string& name = kMachineTurnName);
  ~MachineTurn();
  MachineTurn(const MachineTurn&) = delete;
  MachineTurn& operator=(const MachineTurn&) = delete;

  bool held() const { return fd_ >= 0; }
  double waited_seconds() const { return waited_; }

 private:
  int fd_ = -1;
  double waited_ = 0;
};

}  // namespace dlcbench
