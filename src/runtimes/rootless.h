// Rootless Podman and rootless Docker: the engine run by an unprivileged user, in a user namespace
// built from that user's subordinate IDs (newuidmap), with fuse-overlayfs or
// vfs storage and slirp4netns for a network. A user running dlcbench as
// themselves gets it by running podman; dlcbench running as root switches to
// the named user for every podman call (setpriv, an argument vector).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dlcbench {

// The user scripts/rootless-user.sh makes, which discovery looks for.
inline constexpr const char* kDefaultRootlessUser = "dlcbench-rootless";

struct RootlessUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string home;
  // XDG_RUNTIME_DIR for Podman (its locks, its libpod tmp): /run/user/UID,
  // which logind would make, made here without it. Not a longer path: the
  // cleanup Podman runs when a container exits refuses a runroot over 50
  // characters, and every `podman run` then waits 20 s for it in vain.
  std::string runtime_dir;
  bool switch_user = false;  // dlcbench runs as root and becomes the user
};

// What keeps `name` from running rootless Podman here, each with its fix:
// no such user, no subordinate IDs in /etc/subuid or /etc/subgid, no
// newuidmap, or dlcbench running as another unprivileged user. Empty when
// nothing does.
std::vector<std::string> rootless_problems(const std::string& name);

// The user, checked (EnvironmentUnavailable naming the first problem and
// scripts/rootless-user.sh), its runtime folder made (0700, the user's).
RootlessUser rootless_user(const std::string& name, const std::string& engine = "podman");

// The argument vector that runs a program as the user, to go before it:
// setpriv to the user's IDs and groups, then env with its HOME, USER,
// LOGNAME and XDG_RUNTIME_DIR. Empty when dlcbench is the user already.
std::vector<std::string> run_as_prefix(const RootlessUser& user);

// Rootless Docker's socket for the user, as dockerd-rootless.sh makes it:
// "unix:///run/user/UID/docker.sock".
std::string rootless_docker_host(const RootlessUser& user);
// Whether that socket exists (a rootless dockerd of the user's runs), for
// the default environments; the engine's check says whether it answers.
bool rootless_docker_running(const std::string& name);

}  // namespace dlcbench
