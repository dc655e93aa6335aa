#include "runtimes/environment.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "runtimes/container_options.h"
#include "runtimes/engine.h"
#include "runtimes/host.h"
#include "runtimes/oci_runtime.h"

namespace dlcbench {

std::string io_path_for(const std::string& target, bool in_container) {
  if (target == "rootfs") return in_container ? kContainerRootfsIoPath : kHostRootfsIoPath;
  if (target == "tmpfs") return in_container ? kContainerTmpfsIoPath : kHostTmpfsIoPath;
  return target;  // a host folder, mounted at the same place
}

std::unique_ptr<Environment> make_environment(const EnvironmentRequest& request,
                                              const EnvironmentContext& context) {
  if (request.name == "host") return make_host_environment(context);
  if (request.name == "docker" || request.name == "podman") return make_engine_environment(request, context);
  if (request.name == "runc" || request.name == "crun" || request.name == "runsc") return make_oci_environment(request, context);
  // parse_environment_request() accepts only the names above.
  throw UsageError(fmt::format("unknown environment '{}': valid environments are {}", request.name,
                               fmt::join(environment_names(), ", ")));
}

std::filesystem::path noop_program_beside(const std::filesystem::path& self_exe) {
  return self_exe.parent_path() / "dlcbench-noop";
}

}  // namespace dlcbench
