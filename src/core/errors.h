// Error kinds the command line turns into clear messages and exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace dlcbench {

// The user asked for something that cannot be done as asked; the message says
// what and how to fix it.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A data file is missing or malformed; the message names the file and field.
struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An environment (container runtime) cannot run workers here.
struct EnvironmentUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reading or writing a file failed while a benchmark ran (the disk filled
// up, the device went away); the message names the file system and errno.
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The GPU cannot run the case: no driver, no GPU, a driver older than the
// CUDA runtime, a GPU busy in exclusive mode, or out of GPU memory. The
// message names the cause and the fix; the run's other cases go on.
struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace dlcbench
