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

}  // namespace dlcbench
