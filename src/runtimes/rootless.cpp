#include "runtimes/rootless.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

constexpr const char* kSetUp = "scripts/rootless-user.sh (as root) creates dlcbench-rootless with its IDs";

struct Account {
  std::string name, home;
  uid_t uid = 0;
  gid_t gid = 0;
};

std::optional<Account> account(const std::string& name) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found) return std::nullopt;
  return Account{found->pw_name, found->pw_dir, found->pw_uid, found->pw_gid};
}

// Whether /etc/subuid (or subgid) gives the user a range, by name or by ID.
bool has_subordinate_ids(const char* file, const Account& user) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const std::string owner = line.substr(0, line.find(':'));
    if (owner == user.name || owner == std::to_string(user.uid)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> rootless_problems(const std::string& name) {
  std::vector<std::string> problems;
  const auto user = account(name);
  if (!user) {
    problems.push_back(fmt::format("no user {} on this machine: {}, or name a user with subordinate IDs", name, kSetUp));
    return problems;
  }
  if (geteuid() != 0 && geteuid() != user->uid) {
    const auto self = [] {
      passwd* me = getpwuid(geteuid());
      return me ? std::string(me->pw_name) : std::to_string(geteuid());
    }();
    problems.push_back(fmt::format("dlcbench runs as {}, not as root, so it cannot run Podman as {}: give "
                                   "rootless={} (your own Podman is rootless)",
                                   self, name, self));
  }
  for (const char* file : {"/etc/subuid", "/etc/subgid"})
    if (!has_subordinate_ids(file, *user))
      problems.push_back(fmt::format("{} gives {} no subordinate IDs, which its user namespace is made of: add a "
                                     "range (usermod --add-subuids 200000-265535 --add-subgids 200000-265535 {}) "
                                     "or run {}",
                                     file, name, name, kSetUp));
  if (!find_program("newuidmap") || !find_program("newgidmap"))
    problems.push_back("newuidmap and newgidmap are missing, which map a user's subordinate IDs: run `apt-get "
                       "install uidmap`");
  if (geteuid() == 0 && !find_program("setpriv"))
    problems.push_back("setpriv is missing, which dlcbench runs the engine as the user with: run `apt-get install "
                       "util-linux`");
  return problems;
}

RootlessUser rootless_user(const std::string& name, const std::string& engine) {
  const auto problems = rootless_problems(name);
  if (!problems.empty()) throw EnvironmentUnavailable(fmt::format("{}:rootless={}: {}", engine, name, problems.front()));
  const Account a = *account(name);
  RootlessUser user{a.name, a.uid, a.gid, a.home, "", geteuid() == 0 && a.uid != 0};
  if (!user.switch_user) {
    const char* own = getenv("XDG_RUNTIME_DIR");
    user.runtime_dir = own && *own ? own : fmt::format("/run/user/{}", a.uid);
    return user;
  }
  user.runtime_dir = fmt::format("/run/user/{}", a.uid);
  std::error_code ec;
  fs::create_directories(user.runtime_dir, ec);
  struct stat st {};
  // Someone else's folder under that name is never used.
  if (lstat(user.runtime_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      (st.st_uid != a.uid && st.st_uid != 0) || (st.st_uid == 0 && chown(user.runtime_dir.c_str(), a.uid, a.gid) != 0) ||
      chmod(user.runtime_dir.c_str(), 0700) != 0)
    throw EnvironmentUnavailable(fmt::format("{}:rootless={}: cannot make {} the user's own runtime folder: "
                                             "remove it and try again",
                                             engine, name, user.runtime_dir));
  return user;
}

std::vector<std::string> run_as_prefix(const RootlessUser& user) {
  if (!user.switch_user) return {};
  return {*find_program("setpriv"),
          fmt::format("--reuid={}", user.uid),
          fmt::format("--regid={}", user.gid),
          "--init-groups",
          "--",
          "/usr/bin/env",
          "HOME=" + user.home,
          "USER=" + user.name,
          "LOGNAME=" + user.name,
          "XDG_RUNTIME_DIR=" + user.runtime_dir};
}

std::string rootless_docker_host(const RootlessUser& user) { return "unix://" + user.runtime_dir + "/docker.sock"; }

bool rootless_docker_running(const std::string& name) {
  const struct passwd* pw = getpwnam(name.c_str());
  if (!pw) return false;
  struct stat st {};
  const std::string socket = fmt::format("/run/user/{}/docker.sock", pw->pw_uid);
  return stat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace dlcbench
