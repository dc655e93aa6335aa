// The OCI runtime configuration (config.json) dlcbench writes for runc and
// crun: what `runc spec` gives by default (namespaces, capabilities, masked
// paths, no new privileges), plus the worker's process, the data mount and
// the limits the user asked for.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/container_options.h"
#include "runtimes/gpu_access.h"

namespace dlcbench {

struct OciProcess {
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
};

// A host file or folder bound into the container.
struct OciBind {
  std::string source, destination;
  bool read_only = true;
};

struct OciBundleRequest {
  OciProcess process;
  std::filesystem::path rootfs;  // absolute; mounted read-only (unless io_target is rootfs)
  std::string data;              // host folder mounted read-only at /data; empty: none
  std::vector<OciBind> binds;    // a user's command: the probe, its data and working folder
  // io-seq and io-lat: "rootfs" (the root is then writable), "tmpfs" (a
  // tmpfs at io_path) or a host folder (bind-mounted read-write at io_path).
  std::string io_target;
  std::string io_path;
  std::string cgroups_path;      // e.g. "/dlcbench-<instance>"
  std::string container_name;    // the `container` variable: "runc", "crun"
  ContainerOptions options;
  // GPU cases without the toolkit: these device nodes are created and
  // allowed, the driver libraries bound read-only. Null: no GPU.
  const GpuPassthrough* gpu = nullptr;
  // linux.seccomp (runtimes/seccomp_profile.h); null: no filter, as `runc
  // spec` writes it.
  nlohmann::json seccomp;
};

nlohmann::json oci_config(const OciBundleRequest& request);

// The capabilities `runc spec` grants, which the bundles keep: a
// container's default, unprivileged.
const std::vector<std::string>& oci_default_capabilities();

}  // namespace dlcbench
