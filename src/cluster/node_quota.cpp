#include "cluster/node_quota.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

const fs::path kCgroupRoot = "/sys/fs/cgroup";

bool write_file(const fs::path& file, const std::string& text, std::string& why) {
  std::ofstream out(file);
  out << text;
  out.flush();
  if (out) return true;
  why = fmt::format("cannot write {} to {}: {}", text, file.string(), std::strerror(errno));
  return false;
}

bool unified() { return fs::exists(kCgroupRoot / "cgroup.controllers"); }

// Where the cpu controller is: the v2 root, or v1's cpu hierarchy.
fs::path cpu_hierarchy() { return unified() ? kCgroupRoot : kCgroupRoot / "cpu"; }

}  // namespace

std::string node_quota_cgroup(const std::string& name) { return "/dlcbench-node-" + name; }

std::string enter_node_cpu_quota(const std::string& name, double cpus) {
  if (geteuid() != 0) return "a CPU quota needs root (it makes a cgroup)";
  const fs::path hierarchy = cpu_hierarchy();
  if (!fs::exists(hierarchy)) return fmt::format("no cpu controller at {}", hierarchy.string());
  const fs::path group = hierarchy / node_quota_cgroup(name).substr(1);
  const fs::path steps = group / "steps";
  std::error_code error;
  fs::create_directories(steps, error);
  if (error) return fmt::format("cannot create {}: {}", steps.string(), error.message());
  const long period = 100000;
  const long quota = std::lround(cpus * static_cast<double>(period));
  std::string why;
  if (unified()) {
    write_file(kCgroupRoot / "cgroup.subtree_control", "+cpu", why);  // may already be on
    why.clear();
    if (!write_file(group / "cpu.max", fmt::format("{} {}", quota, period), why)) return why;
  } else {
    if (!write_file(group / "cpu.cfs_period_us", std::to_string(period), why)) return why;
    if (!write_file(group / "cpu.cfs_quota_us", std::to_string(quota), why)) return why;
  }
  if (!write_file(steps / "cgroup.procs", std::to_string(getpid()), why)) return why;
  return "";
}

void leave_node_cpu_quota(const std::string& name) {
  std::string why;
  write_file(cpu_hierarchy() / "cgroup.procs", std::to_string(getpid()), why);
  const std::string relative = node_quota_cgroup(name).substr(1);
  std::vector<fs::path> hierarchies = {kCgroupRoot};
  std::error_code error;
  if (!unified())
    for (const auto& entry : fs::directory_iterator(kCgroupRoot, error))
      if (entry.is_directory() && !entry.is_symlink()) hierarchies.push_back(entry.path());
  for (const auto& h : hierarchies) {
    const fs::path group = h / relative;
    if (!fs::is_directory(group, error)) continue;
    // Children first (steps, and any the runtimes left empty); rmdir, never
    // remove_all: a cgroup's files cannot be unlinked.
    for (const auto& entry : fs::directory_iterator(group, error))
      if (entry.is_directory()) ::rmdir(entry.path().c_str());
    ::rmdir(group.c_str());
  }
}

}  // namespace dlcbench
