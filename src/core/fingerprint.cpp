#include "core/fingerprint.h"

#include <dlfcn.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/accounting.h"
#include "core/blas_check.h"
#include "core/memory.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The controller file of our own cgroup, falling back to the hierarchy's
// root file (inside a container the cgroup namespace makes them the same).
std::optional<std::string> cgroup_file(const fs::path& mount, const std::string& own,
                                       const std::string& name) {
  for (const auto& candidate : {mount / fs::path(own).relative_path() / name, mount / name})
    if (fs::exists(candidate)) return read_first_line(candidate);
  return std::nullopt;
}

}  // namespace

std::string own_cgroup(const fs::path& root, const std::string& controller) {
  std::ifstream in(root / "proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // hierarchy-id:controller-list:path
    auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string list = line.substr(a + 1, b - a - 1);
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ','))
      if (item == controller) return line.substr(b + 1);
    if (controller.empty() && list.empty()) return line.substr(b + 1);
  }
  return "/";
}

ContainerDetection detect_container(const fs::path& root) {
  // Collect every mark, not just the first: a "host" may itself be a
  // container (CI machines often are), and the evidence tells them apart.
  ContainerDetection d;
  std::vector<std::string> evidence;
  auto found = [&](const std::string& runtime, std::string why) {
    if (d.runtime.empty()) d.runtime = runtime;
    evidence.push_back(std::move(why));
  };
  if (fs::exists(root / ".dockerenv")) found("docker", "/.dockerenv exists");
  if (fs::exists(root / "run/.containerenv")) found("podman", "/run/.containerenv exists");
  // ch-run sets it in every container it starts (and sets no container=).
  if (!env_or_empty("CH_RUNNING").empty() && root == "/")
    found("charliecloud", "environment variable CH_RUNNING is set (Charliecloud's ch-run)");
  if (auto c = env_or_empty("container"); !c.empty() && root == "/")
    found(c, fmt::format("environment variable container={}", c));
  const std::string cg = read_small_file(root / "proc/1/cgroup");
  for (const auto& [mark, runtime] : {std::pair{"/docker/", "docker"}, {"/docker-", "docker"},
                                      {"/libpod-", "podman"}, {"/containerd/", "containerd"},
                                      {"/kubepods", "kubernetes"}})
    if (cg.find(mark) != std::string::npos)
      found(runtime, fmt::format("/proc/1/cgroup names a container ({})", mark));
  d.in_container = !evidence.empty();
  d.detected_by = d.in_container
                      ? fmt::format("{}", fmt::join(evidence, "; "))
                      : "no container marks (/.dockerenv, /run/.containerenv, container=, /proc/1/cgroup)";
  return d;
}

CgroupLimits read_cgroup_limits(const fs::path& root) {
  CgroupLimits limits;
  const fs::path cg = root / "sys/fs/cgroup";
  const bool v2_root = fs::exists(cg / "cgroup.controllers");
  const bool v1 = fs::exists(cg / "cpu") || fs::exists(cg / "memory");
  limits.version = v2_root ? "v2" : (v1 ? (fs::exists(cg / "unified") ? "hybrid" : "v1") : "none");

  if (v2_root) {
    const std::string own = own_cgroup(root, "");
    if (auto cpu = cgroup_file(cg, own, "cpu.max")) {
      std::stringstream ss(*cpu);
      std::string quota;
      double period = 0;
      ss >> quota >> period;
      if (quota != "max" && period > 0) limits.cpu_quota = std::stod(quota) / period;
    }
    if (auto mem = cgroup_file(cg, own, "memory.max"); mem && *mem != "max")
      limits.memory_limit_bytes = std::stoull(*mem);
  } else if (v1) {
    const std::string cpu_own = own_cgroup(root, "cpu");
    auto quota = cgroup_file(cg / "cpu", cpu_own, "cpu.cfs_quota_us");
    auto period = cgroup_file(cg / "cpu", cpu_own, "cpu.cfs_period_us");
    if (quota && period && std::stoll(*quota) > 0 && std::stoll(*period) > 0)
      limits.cpu_quota = static_cast<double>(std::stoll(*quota)) / static_cast<double>(std::stoll(*period));
    const std::string mem_own = own_cgroup(root, "memory");
    if (auto mem = cgroup_file(cg / "memory", mem_own, "memory.limit_in_bytes")) {
      // v1 reports "unlimited" as a huge page-rounded number.
      const auto bytes = std::stoull(*mem);
      if (bytes < (std::uint64_t{1} << 62)) limits.memory_limit_bytes = bytes;
    }
  }
  return limits;
}

namespace {

// The CPUs this process was given. With pinned threads (OMP_PROC_BIND,
// OMP_PLACES: dlcbench's default) OpenMP binds the calling thread to its
// first place as soon as it starts, so its own affinity says "0"; OpenMP's
// places, made from the affinity it started with, still list them all.
// Looked up at run time: a build without OpenMP has no places.
bool given_cpus(cpu_set_t& set) {
  CPU_ZERO(&set);
  using Count = int (*)();
  using PlaceCount = int (*)(int);
  using PlaceIds = void (*)(int, int*);
  const auto num_places = reinterpret_cast<Count>(dlsym(RTLD_DEFAULT, "omp_get_num_places"));
  const auto place_num_procs = reinterpret_cast<PlaceCount>(dlsym(RTLD_DEFAULT, "omp_get_place_num_procs"));
  const auto place_proc_ids = reinterpret_cast<PlaceIds>(dlsym(RTLD_DEFAULT, "omp_get_place_proc_ids"));
  if (num_places && place_num_procs && place_proc_ids && num_places() > 0) {
    for (int place = 0; place < num_places(); ++place) {
      std::vector<int> ids(static_cast<std::size_t>(std::max(place_num_procs(place), 0)));
      if (!ids.empty()) place_proc_ids(place, ids.data());
      for (int id : ids)
        if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
    }
    if (CPU_COUNT(&set) > 0) return true;
  }
  return sched_getaffinity(0, sizeof set, &set) == 0;
}

// "0-3,6" for a CPU set.
std::string cpu_list(const cpu_set_t& set) {
  std::vector<std::string> ranges;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int end = cpu;
    while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) ++end;
    ranges.push_back(end == cpu ? std::to_string(cpu) : fmt::format("{}-{}", cpu, end));
    cpu = end;
  }
  return fmt::format("{}", fmt::join(ranges, ","));
}

}  // namespace

std::string affinity_list() {
  cpu_set_t set;
  return given_cpus(set) ? cpu_list(set) : "unknown";
}

nlohmann::json process_security() { return process_security(read_proc_status()); }

nlohmann::json process_security(const std::map<std::string, std::string>& status) {
  // /proc/self/status: "Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t00000000a80425fb".
  nlohmann::json s = {{"seccomp", "unknown"}, {"no_new_privs", nullptr}, {"capabilities_effective", ""}};
  if (auto it = status.find("Seccomp"); it != status.end()) {
    const std::string& value = it->second;
    s["seccomp"] = value == "0" ? "disabled" : value == "1" ? "strict" : value == "2" ? "filter" : value;
  }
  if (auto it = status.find("NoNewPrivs"); it != status.end()) s["no_new_privs"] = it->second == "1";
  if (auto it = status.find("CapEff"); it != status.end()) s["capabilities_effective"] = it->second;
  return s;
}

nlohmann::json machine_kind(std::string_view proc_version, bool hypervisor_flag, std::string_view dmi_vendor,
                            std::string_view dmi_product) {
  if (is_gvisor_kernel(proc_version))
    return {{"kind", "gVisor sandbox"}, {"detected_by", "/proc/version is gVisor's fixed Linux 4.4.0 text"}};
  if (!hypervisor_flag)
    return {{"kind", "bare metal"}, {"detected_by", "no hypervisor flag in /proc/cpuinfo"}};
  auto trimmed = [](std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return std::string(text);
  };
  const std::string vendor = trimmed(dmi_vendor), product = trimmed(dmi_product);
  std::string by = "the hypervisor flag in /proc/cpuinfo";
  if (!vendor.empty() || !product.empty())
    by += fmt::format("; DMI: {}{}{}", vendor, !vendor.empty() && !product.empty() ? " " : "", product);
  else
    by += "; no DMI vendor (a micro-VM such as Firecracker gives none)";
  return {{"kind", "virtual machine"}, {"detected_by", by}};
}

nlohmann::json surroundings_fingerprint(const FingerprintPaths& paths) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  cpu_set_t set;
  const bool cpus_read = given_cpus(set);

  const auto container = detect_container();
  const auto limits = read_cgroup_limits();
  nlohmann::json j;
  j["hostname"] = host;
  j["container"] = {{"in_container", container.in_container},
                    {"runtime", container.runtime},
                    {"detected_by", container.detected_by}};
  j["cpu"] = {{"model", cpu_model()},
              {"online", sysconf(_SC_NPROCESSORS_ONLN)},
              {"affinity", cpus_read ? cpu_list(set) : "unknown"},
              {"affinity_count", CPU_COUNT(&set)}};
  j["cgroup"] = {{"version", limits.version},
                 {"cpu_quota", limits.cpu_quota ? nlohmann::json(*limits.cpu_quota) : nlohmann::json()},
                 {"memory_limit_bytes",
                  limits.memory_limit_bytes ? nlohmann::json(*limits.memory_limit_bytes) : nlohmann::json()}};
  j["kernel"] = fmt::format("{} {}", u.release, u.version);
  j["machine"] = machine_kind(read_small_file("/proc/version"), read_cpu_isa().hypervisor,
                              read_small_file("/sys/class/dmi/id/sys_vendor"),
                              read_small_file("/sys/class/dmi/id/product_name"));
  // What confines the process: recorded, so a report shows that containers
  // ran with the runtime's defaults. Its seccomp mode is compared under
  // "isolation" (a filter runs on every system call); the rest changes no speed.
  const auto status = read_proc_status();
  j["security"] = process_security(status);
  // What a container changes by design (seccomp, /dev/shm, file systems...):
  // compared as possible causes of an overhead, never as a reason to stop.
  j["isolation"] = isolation_fingerprint(j["security"]["seccomp"].get<std::string>(), status, paths);
  // Differs between the host and any container, whatever marks exist.
  std::error_code ec;
  j["mount_namespace"] = fs::read_symlink("/proc/self/ns/mnt", ec).string();
  // The settings that change how the libraries run ("env", "round" and
  // "case" are keys the orchestrator adds to every line).
  j["variables"] = nlohmann::json::object();
  for (const char* v : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "MKL_NUM_THREADS"})
    j["variables"][v] = env_or_empty(v);
  for (const char* v : kCudaVariables) j["variables"][v] = env_or_empty(v);
  return j;
}

}  // namespace dlcbench
