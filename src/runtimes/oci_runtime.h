// Plain OCI runtimes, runc and crun: dlcbench writes the bundle (a root file
// system from the same binary and library closure as its images, and a
// config.json) and runs it in the foreground, with no engine in between.
#pragma once

#include <memory>

#include "runtimes/environment.h"

namespace dlcbench {

// request.name is "runc" or "crun".
std::unique_ptr<Environment> make_oci_environment(const EnvironmentRequest& request,
                                                  const EnvironmentContext& context);

}  // namespace dlcbench
