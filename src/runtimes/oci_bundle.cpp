#include "runtimes/oci_bundle.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;

json mount(const std::string& destination, const std::string& type, const std::string& source,
           std::vector<std::string> options) {
  return {{"destination", destination}, {"type", type}, {"source", source}, {"options", options}};
}

}  // namespace

const std::vector<std::string>& oci_default_capabilities() {
  static const std::vector<std::string> caps = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"};
  return caps;
}

json oci_config(const OciBundleRequest& r) {
  const ContainerOptions& o = r.options;
  json process_env = json::array({"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"});
  // The systemd convention Podman follows too: tells the worker (and any
  // program) that it runs in a container, and which kind.
  if (!r.container_name.empty()) process_env.push_back("container=" + r.container_name);
  for (const auto& [k, v] : r.process.env) process_env.push_back(k + "=" + v);
  const json caps = oci_default_capabilities();

  const std::uint64_t shm = o.shm_bytes.value_or(64ull * 1024 * 1024);  // docker's default
  json mounts = json::array({
      mount("/proc", "proc", "proc", {}),
      mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}),
      mount("/dev/pts", "devpts", "devpts", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}),
      mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}),
      mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"}),
      mount("/sys/fs/cgroup", "cgroup", "cgroup", {"nosuid", "noexec", "nodev", "relatime", "ro"}),
      // The root is read-only; libraries may still want a scratch /tmp.
      mount("/tmp", "tmpfs", "tmpfs", {"nosuid", "nodev", "mode=1777"}),
  });
  if (o.ipc == "host")
    mounts.push_back(mount("/dev/shm", "bind", "/dev/shm", {"rbind", "nosuid", "nodev"}));
  else
    mounts.push_back(mount("/dev/shm", "tmpfs", "shm",
                           {"nosuid", "noexec", "nodev", "mode=1777", "size=" + std::to_string(shm)}));
  if (!r.data.empty()) mounts.push_back(mount("/data", "bind", r.data, {"rbind", "ro", "nosuid", "nodev"}));
  for (const auto& b : r.binds)
    mounts.push_back(mount(b.destination, "bind", b.source, {"rbind", b.read_only ? "ro" : "rw", "nosuid", "nodev"}));
  // scratch=tmpfs: writes meant for the container's own file system go to
  // a tmpfs instead (dlcbench explain's storage variant).
  if (r.io_target == "tmpfs" || (r.io_target == "rootfs" && o.scratch == "tmpfs"))
    mounts.push_back(mount(r.io_path, "tmpfs", "tmpfs", {"nosuid", "nodev", "mode=1777"}));
  else if (!r.io_target.empty() && r.io_target != "rootfs")
    mounts.push_back(mount(r.io_path, "bind", r.io_target, {"rbind", "rw", "nosuid", "nodev"}));

  json namespaces = json::array({{{"type", "uts"}}, {{"type", "mount"}}, {{"type", "cgroup"}}});
  if (o.pid != "host") namespaces.push_back({{"type", "pid"}});
  if (o.network != "host") namespaces.push_back({{"type", "network"}});
  if (o.ipc != "host") namespaces.push_back({{"type", "ipc"}});

  json resources = {{"devices", json::array({{{"allow", false}, {"access", "rwm"}}})}};
  json devices = json::array();
  if (r.gpu) {
    for (const auto& node : r.gpu->devices) {
      devices.push_back({{"path", node.path}, {"type", "c"}, {"major", node.major}, {"minor", node.minor},
                         {"fileMode", 0666}, {"uid", 0}, {"gid", 0}});
      resources["devices"].push_back(
          {{"allow", true}, {"type", "c"}, {"major", node.major}, {"minor", node.minor}, {"access", "rwm"}});
    }
    for (const auto& library : r.gpu->libraries)
      mounts.push_back(mount(library, "bind", library, {"rbind", "ro", "nosuid", "nodev"}));
    process_env.push_back("LD_LIBRARY_PATH=" + r.gpu->library_dir);
  }
  if (o.cpus) {
    constexpr std::int64_t period = 100000;  // microseconds, as docker --cpus uses
    resources["cpu"]["period"] = period;
    resources["cpu"]["quota"] = static_cast<std::int64_t>(*o.cpus * period + 0.5);
  }
  if (!o.cpuset.empty()) resources["cpu"]["cpus"] = o.cpuset;
  if (o.memory_bytes) resources["memory"] = {{"limit", *o.memory_bytes}};

  json config = {
      {"ociVersion", "1.0.2"},
      {"process",
       {{"terminal", false},
        {"user", {{"uid", 0}, {"gid", 0}}},
        {"args", r.process.args},
        {"env", process_env},
        {"cwd", "/"},
        {"capabilities", {{"bounding", caps}, {"effective", caps}, {"permitted", caps}}},
        {"rlimits", json::array({{{"type", "RLIMIT_NOFILE"}, {"hard", 1024}, {"soft", 1024}}})},
        {"noNewPrivileges", true}}},
      // Read-only as `runc spec` makes it, unless the workload measures
      // writing to the container's own file system.
      {"root", {{"path", r.rootfs.string()}, {"readonly", r.io_target != "rootfs"}}},
      {"hostname", "dlcbench"},
      {"mounts", mounts},
      {"linux",
       {{"resources", resources},
        {"devices", devices},
        {"cgroupsPath", r.cgroups_path},
        {"namespaces", namespaces},
        {"maskedPaths",
         {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"}},
        {"readonlyPaths",
         {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}}}},
  };
  if (!r.seccomp.is_null()) config["linux"]["seccomp"] = r.seccomp;
  return config;
}

}  // namespace dlcbench
