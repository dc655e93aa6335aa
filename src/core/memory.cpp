#include "core/memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dlcbench {
namespace {

// A value from /proc/meminfo in bytes ("MemAvailable:  23889676 kB"); -1 if absent.
std::int64_t meminfo_bytes(const std::filesystem::path& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    long long value = 0;
    std::string unit;
    if (!(fields >> value)) return -1;
    fields >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return -1;
}

// A cgroup limit file: a number of bytes, "max" (v2, none) or a huge number
// (v1, none). -1 when there is no limit or no file.
std::int64_t cgroup_limit_bytes(const std::filesystem::path& file) {
  std::string text = read_first_line(file);
  if (text.empty() || text == "max") return -1;
  try {
    long long value = std::stoll(text);
    // v1 writes PAGE_COUNTER_MAX * page size (about 2^63) when unlimited.
    if (value <= 0 || value >= (1LL << 62)) return -1;
    return value;
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

std::string read_first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string read_small_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::int64_t usable_memory_bytes(const std::filesystem::path& root) {
  std::int64_t usable = meminfo_bytes(root / "proc/meminfo", "MemAvailable");
  // The limit files at the cgroup mount's root (what a container sees of its
  // own cgroup) and those of the cgroup /proc/self/cgroup names (a process
  // on the host, or a container without a cgroup namespace).
  std::vector<std::filesystem::path> files = {root / "sys/fs/cgroup/memory.max",
                                              root / "sys/fs/cgroup/memory/memory.limit_in_bytes"};
  std::ifstream self(root / "proc/self/cgroup");
  std::string line;
  while (std::getline(self, line)) {
    // "0::/user.slice/..." (v2) or "4:memory:/docker/..." (v1)
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (path.empty() || path == "/") continue;
    const std::string relative = path.substr(1);
    if (controllers.empty()) {
      files.push_back(root / "sys/fs/cgroup" / relative / "memory.max");
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      files.push_back(root / "sys/fs/cgroup/memory" / relative / "memory.limit_in_bytes");
    }
  }
  for (const auto& file : files) {
    const std::int64_t limit = cgroup_limit_bytes(file);
    if (limit > 0) usable = usable < 0 ? limit : std::min(usable, limit);
  }
  return usable;
}

std::string format_memory_bytes(double bytes) {
  constexpr double KiB = 1024.0, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;
  if (bytes >= TiB) return fmt::format("{:.2f} TiB", bytes / TiB);
  if (bytes >= GiB) return fmt::format("{:.2f} GiB", bytes / GiB);
  if (bytes >= MiB) return fmt::format("{:.1f} MiB", bytes / MiB);
  if (bytes >= KiB) return fmt::format("{:.1f} KiB", bytes / KiB);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace dlcbench
