// A container engine's seccomp profile (Docker's JSON format: Docker's
// default, Podman's /usr/share/containers/seccomp.json) turned into the OCI
// runtime-spec `linux.seccomp` object runc and crun read from config.json, as
// Docker and Podman do before they start a container. With it a runc/crun
// bundle runs with the same filter an engine would install, so the cost of
// seccomp can be measured apart from the cost of the engine.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

// Where the engines keep their default profile (Podman's; Docker's default
// is built in, in the same format). Debian ships it in
// golang-github-containers-common.
inline constexpr const char* kEngineDefaultSeccompProfile = "/usr/share/containers/seccomp.json";

// What a profile's rules are conditioned on (includes/excludes).
struct SeccompTarget {
  std::string machine;                    // uname -m: x86_64, aarch64
  std::vector<std::string> capabilities;  // the container's, e.g. CAP_KILL
  std::optional<std::pair<int, int>> kernel;  // major, minor; nullopt: unknown, minKernel conditions are not applied
};

// The rules that apply to `target`, without the fields the OCI spec lacks
// (comment, includes, excludes, errno names). Throws DataError naming the
// field when the profile is not in Docker's format.
nlohmann::json oci_seccomp_from_engine_profile(const nlohmann::json& profile, const SeccompTarget& target);

// Reads `file` and converts it for this machine and kernel (uname) and the
// container's `capabilities`. A missing or malformed file is a DataError
// naming the file and the fix.
nlohmann::json load_engine_seccomp_profile(const std::filesystem::path& file,
                                           const std::vector<std::string>& capabilities);

}  // namespace dlcbench
