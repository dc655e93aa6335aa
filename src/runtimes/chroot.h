// The image without a runtime: a user's command run in the image's root file
// system by a plain chroot (dlcbench-probe does it), with no namespaces but
// a private mount namespace for its binds, no cgroup limits and no seccomp
// filter. Against the host it is what the image's own files cost (other
// libraries, other Python); against a container of the same root file
// system, what the runtime costs. Only a user's command runs there.
#pragma once

#include <memory>

#include "runtimes/environment.h"

namespace dlcbench {

std::unique_ptr<Environment> make_chroot_environment(const EnvironmentRequest& request,
                                                     const EnvironmentContext& context);

}  // namespace dlcbench
