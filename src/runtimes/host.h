// The bare host: the worker as a child process of the orchestrator.
#pragma once

#include <memory>

#include "runtimes/environment.h"

namespace dlcbench {

std::unique_ptr<Environment> make_host_environment(const EnvironmentContext& context);

}  // namespace dlcbench
