#include "core/isolation.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"
#include "core/file_system.h"
#include "core/memory.h"

extern char** environ;

namespace dlcbench {
namespace {

namespace isolation_fs = std::filesystem;

nlohmann::json isolation_optional(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

std::map<std::string, std::string> parse_proc_status(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    const auto start = value.find_first_not_of(" \t");
    value.erase(0, start == std::string::npos ? value.size() : start);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.pop_back();
    fields[line.substr(0, colon)] = value;
  }
  return fields;
}

std::map<std::string, std::string> read_proc_status(const isolation_fs::path& root) {
  return parse_proc_status(read_small_file(root / "proc/self/status"));
}

nlohmann::json process_speculation(const std::map<std::string, std::string>& status) {
  auto field = [&](const char* key) {
    const auto it = status.find(key);
    return it == status.end() ? nlohmann::json() : nlohmann::json(it->second);
  };
  return {{"store_bypass", field("Speculation_Store_Bypass")}, {"indirect_branch", field("SpeculationIndirectBranch")}};
}

std::optional<std::map<std::string, std::string>> speculation_mitigations(const isolation_fs::path& root) {
  const isolation_fs::path folder = root / "sys/devices/system/cpu/vulnerabilities";
  std::error_code ec;
  if (!isolation_fs::is_directory(folder, ec)) return std::nullopt;
  std::map<std::string, std::string> out;
  for (isolation_fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    out[it->path().filename().string()] = read_first_line(it->path());
  }
  return out;
}

std::optional<std::uint64_t> shm_bytes(const isolation_fs::path& root) {
  struct statvfs st {};
  if (statvfs((root / "dev/shm").c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.f_blocks) * static_cast<std::uint64_t>(st.f_frsize);
}

std::optional<std::string> own_namespace(const std::string& kind, const isolation_fs::path& root) {
  std::error_code ec;
  const auto target = isolation_fs::read_symlink(root / "proc/self/ns" / kind, ec);
  if (ec) return std::nullopt;
  return target.string();
}

std::optional<std::string> ipc_namespace(const isolation_fs::path& root) { return own_namespace("ipc", root); }

nlohmann::json rlimit_value(rlim_t limit) {
  if (limit == RLIM_INFINITY) return "unlimited";
  return static_cast<std::uint64_t>(limit);
}

MemlockLimits memlock_limits() {
  struct rlimit rl {};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return {};
  return {rlimit_value(rl.rlim_cur), rlimit_value(rl.rlim_max)};
}

std::optional<std::string> bracketed_choice(const std::string& text) {
  const auto open = text.find('[');
  if (open == std::string::npos) return std::nullopt;
  const auto close = text.find(']', open + 1);
  if (close == std::string::npos || close == open + 1) return std::nullopt;
  return text.substr(open + 1, close - open - 1);
}

std::optional<std::string> transparent_hugepages(const std::string& setting, const isolation_fs::path& root) {
  return bracketed_choice(read_first_line(root / "sys/kernel/mm/transparent_hugepage" / setting));
}

std::optional<std::string> file_system_type(const isolation_fs::path& path, const isolation_fs::path& root) {
  if (path.empty()) return std::nullopt;
  try {
    return file_system_of(path, root / "proc/self/mountinfo").type;
  } catch (const UsageError&) {
    return std::nullopt;  // a path that cannot be statted here
  }
}

std::optional<std::string> user_namespace_map(const isolation_fs::path& root) {
  std::ifstream in(root / "proc/self/uid_map");
  if (!in) return std::nullopt;
  std::vector<std::string> ranges;
  std::uint64_t inside = 0, outside = 0, count = 0;
  while (in >> inside >> outside >> count) ranges.push_back(fmt::format("{}:{}:{}", inside, outside, count));
  if (ranges.empty()) return std::nullopt;
  if (ranges.size() == 1 && ranges[0] == "0:0:4294967295") return "none";
  return fmt::format("{}", fmt::join(ranges, ","));
}

std::map<std::string, std::string> thread_variables() {
  static constexpr std::string_view kPrefixes[] = {"OMP_", "MKL_", "OPENBLAS_", "KMP_", "GOMP_"};
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, equals);
    for (const auto prefix : kPrefixes)
      if (name.substr(0, prefix.size()) == prefix) {
        out[std::string(name)] = std::string(entry.substr(equals + 1));
        break;
      }
  }
  return out;
}

nlohmann::json isolation_fingerprint(const std::string& seccomp, const std::map<std::string, std::string>& status,
                                     const FingerprintPaths& paths, const isolation_fs::path& root) {
  nlohmann::json j;
  j["seccomp"] = seccomp;
  j["speculation"] = process_speculation(status);
  const auto mitigations = speculation_mitigations(root);
  j["mitigations"] = mitigations ? nlohmann::json(*mitigations) : nlohmann::json();
  const auto shm = shm_bytes(root);
  j["shm_bytes"] = shm ? nlohmann::json(*shm) : nlohmann::json();
  // Recorded, never compared: every container has its own.
  // A variant sharing the host's namespace shows the host's value here
  // (dlcbench explain: network=host, ipc=host, pid=host).
  j["ipc_namespace"] = isolation_optional(ipc_namespace(root));
  j["net_namespace"] = isolation_optional(own_namespace("net", root));
  j["pid_namespace"] = isolation_optional(own_namespace("pid", root));
  // Compared: rootless runtimes map IDs through a user namespace.
  j["user_namespace"] = isolation_optional(user_namespace_map(root));
  const auto memlock = memlock_limits();
  j["memlock_soft"] = memlock.soft;
  j["memlock_hard"] = memlock.hard;
  j["thp_enabled"] = isolation_optional(transparent_hugepages("enabled", root));
  j["thp_defrag"] = isolation_optional(transparent_hugepages("defrag", root));
  // file_system_type() gives nullopt (null) for an empty path.
  j["data_fs"] = isolation_optional(file_system_type(paths.data, root));
  j["scratch_fs"] = isolation_optional(file_system_type(paths.scratch, root));
  j["thread_variables"] = thread_variables();
  return j;
}

}  // namespace dlcbench
