// Container engines with a docker-style command line: Docker Engine (through
// its client and daemon) and Podman (daemonless). Both run an image that
// dlcbench builds from its own binary and library closure.
#pragma once

#include <memory>

#include "runtimes/environment.h"

namespace dlcbench {

// request.name is "docker" or "podman".
std::unique_ptr<Environment> make_engine_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context);

}  // namespace dlcbench
