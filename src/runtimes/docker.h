// Docker Engine, through its command-line client.
#pragma once

#include <memory>

#include "runtimes/environment.h"

namespace dlcbench {

std::unique_ptr<Environment> make_docker_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context);

}  // namespace dlcbench
