#include "model/container_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/units.h"

namespace dlcbench {
namespace {

struct OptionInfo {
  std::string key;
  std::string help;
};

const std::vector<OptionInfo>& all_options() {
  static const std::vector<OptionInfo> all = {
      {"image", "image=NAME      image to run instead of the one dlcbench builds from its own binary"},
      {"rootfs", "rootfs=DIR      root file system to run instead of the one dlcbench builds (must hold /opt/dlcbench/bin/dlcbench-worker)"},
      {"image_dir", "image_dir=DIR   Charliecloud image folder to run instead of the one dlcbench builds (a user's "
                    "command runs in yours); rootfs=DIR means the same"},
      {"runtime", "runtime=NAME    OCI runtime the engine uses: runc or crun for podman (default: runc, see `dlcbench "
                  "doctor`); runc or runsc (gVisor, registered with dockerd) for docker (default: dockerd's own)"},
      {"platform", "platform=NAME   gVisor's platform: ptrace (default; works in VMs and containers) or kvm (needs "
                   "/dev/kvm; see `dlcbench doctor`)"},
      {"cpus", "cpus=N          CPU quota in CPUs, e.g. 1 or 0.5"},
      {"cpuset", "cpuset=LIST     CPUs the container may run on, e.g. 0 or 0-3,6"},
      {"memory", "memory=SIZE     memory limit, e.g. 4g or 512m"},
      {"shm", "shm=SIZE        size of /dev/shm, e.g. 1g (default 64m)"},
      {"ipc", "ipc=MODE        IPC namespace: private, shareable or host"},
      {"pid", "pid=MODE        PID namespace: private (default) or host"},
      {"scratch", "scratch=WHERE   where a workload writing to the container's own file system, --path rootfs, "
                  "writes: rootfs (default), tmpfs, or volume (docker, podman: an anonymous volume)"},
      {"file-access", "file-access=M   gVisor's file access to the root file system: exclusive (default) or shared"},
      {"overlay", "overlay=MOUNTS  gVisor's overlay in the sandbox's memory: none (default), root or all"},
      {"network", "network=MODE    network: none (default), host or bridge"},
      {"seccomp", "seccomp=PROFILE seccomp profile: unconfined or a JSON file; for runc, crun and runsc also "
                  "default (Podman's default profile, /usr/share/containers/seccomp.json; their bundles have none by default)"},
      {"rootless", "rootless=USER   podman, docker: run the engine rootless as USER, a user with subordinate IDs (as "
                   "root; scripts/rootless-user.sh makes dlcbench-rootless), or as yourself when dlcbench runs "
                   "unprivileged; docker: that user's dockerd-rootless.sh must run (scripts/with-rootless-docker.sh)"},
      {"gpus", "gpus=MODE       GPU access for GPU cases: auto (default: the NVIDIA container toolkit where installed, "
               "else device nodes), all (the toolkit), nodes (dlcbench passes /dev/nvidia* and the driver libraries), "
               "none"},
  };
  return all;
}

[[noreturn]] void bad_value(const std::string& env, const std::string& key, const std::string& value,
                            const std::string& expected) {
  throw UsageError(fmt::format("environment option {}:{}={} is not valid: {}", env, key, value, expected));
}

std::string one_of(const std::string& env, const std::string& key, const std::string& value,
                   const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), value) == valid.end())
    bad_value(env, key, value, fmt::format("use one of {}", fmt::join(valid, ", ")));
  return value;
}

// Docker's reference grammar (distribution/reference), which Podman shares:
// anything else is refused by the engine at the first launch, and a value
// such as ";rm -rf X" is no name at all.
bool is_image_reference(const std::string& text) {
  static const std::string domain_part = R"((?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))";
  static const std::string domain = domain_part + R"((?:\.)" + domain_part + R"()*(?::[0-9]+)?)";
  static const std::string path_part = R"([a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)";
  static const std::string tag = R"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})";
  static const std::string digest = R"(@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})";
  static const std::regex reference("(?:" + domain + "/)?" + path_part + "(?:/" + path_part + ")*(?:" + tag +
                                    ")?(?:" + digest + ")?");
  static const std::regex image_id(R"((?:sha256:)?[0-9a-f]{64})");
  // Docker's limit is 255 for the name; the cap also bounds the matcher's work.
  return text.size() <= 512 && (std::regex_match(text, reference) || std::regex_match(text, image_id));
}

}  // namespace

const std::vector<std::string>& option_keys(const std::string& environment) {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"host", {}},
      {"docker",
       {"image", "runtime", "cpus", "cpuset", "memory", "shm", "ipc", "pid", "network", "seccomp", "scratch", "gpus",
        "rootless"}},
      {"podman",
       {"image", "runtime", "cpus", "cpuset", "memory", "shm", "ipc", "pid", "network", "seccomp", "scratch", "gpus",
        "rootless"}},
      // The OCI runtimes run a bundle without a network stack of their own:
      // "none" is a fresh network namespace, "host" shares the host's.
      {"runc", {"rootfs", "cpus", "cpuset", "memory", "shm", "ipc", "pid", "network", "seccomp", "scratch", "gpus"}},
      {"crun", {"rootfs", "cpus", "cpuset", "memory", "shm", "ipc", "pid", "network", "seccomp", "scratch", "gpus"}},
      // gVisor: the same bundles, run by a user-space kernel (no GPU
      // passthrough in the packaged version). Its kernel keeps its own PID
      // and IPC namespaces whatever the bundle says, so no pid= and no
      // ipc=host.
      // A user's command in its image's root file system, without isolation.
      {"chroot", {"rootfs"}},
      // ch-run: a folder, run in a user and a mount namespace; nothing else to set.
      {"charliecloud", {"image_dir", "rootfs"}},
      {"runsc", {"rootfs", "platform", "file-access", "overlay", "cpus", "cpuset", "memory", "shm", "network",
                 "seccomp", "scratch"}},
  };
  static const std::vector<std::string> none;
  auto it = keys.find(environment);
  return it == keys.end() ? none : it->second;
}

std::string option_help(const std::string& key) {
  for (const auto& o : all_options())
    if (o.key == key) return o.help;
  return key;
}

std::string threads_beyond_cpus(const std::string& label, const ContainerOptions& options, int threads) {
  if (options.cpus && static_cast<double>(threads) > std::ceil(*options.cpus - 1e-9))
    return fmt::format("{} has a CPU quota of {:g} CPU{} and every worker runs {} compute threads: the kernel "
                       "throttles the container whenever they use the quota up (CFS), and that is measured as its "
                       "overhead. If that is not what you mean to measure, give --threads {} to fit the quota, or "
                       "cpus={}",
                       label, *options.cpus, *options.cpus == 1 ? "" : "s", threads,
                       std::max(1, static_cast<int>(std::floor(*options.cpus))), threads);
  if (!options.cpuset.empty())
    if (const auto cpus = parse_cpu_list(options.cpuset); cpus && static_cast<int>(cpus->size()) < threads)
      return fmt::format("{} may run on {} CPU{} (cpuset={}) and every worker runs {} compute threads: they take "
                         "turns on them, and that is measured as its overhead. If that is not what you mean to "
                         "measure, give --threads {}, or a cpuset of {} CPUs",
                         label, cpus->size(), cpus->size() == 1 ? "" : "s", options.cpuset, threads, cpus->size(),
                         threads);
  return "";
}

std::optional<std::vector<int>> parse_cpu_list(const std::string& text) {
  // Ranges are collected and merged, not expanded one CPU at a time: a list
  // repeating "0-65535" hundreds of times once took minutes (found by
  // fuzz/environment_options_fuzzer.cpp).
  std::vector<std::pair<int, int>> ranges;
  std::stringstream in(text);
  std::string item;
  if (text.empty() || text.back() == ',') return std::nullopt;
  auto number = [](const std::string& s) -> std::optional<int> {
    int v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > 65535) return std::nullopt;
    return v;
  };
  while (std::getline(in, item, ',')) {
    const auto dash = item.find('-');
    auto first = number(item.substr(0, dash));
    auto last = dash == std::string::npos ? first : number(item.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    ranges.emplace_back(*first, *last);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<int> cpus;
  for (const auto& [first, last] : ranges)
    for (int c = cpus.empty() ? first : std::max(first, cpus.back() + 1); c <= last; ++c) cpus.push_back(c);
  return cpus;
}

ContainerOptions parse_container_options(const std::string& env, const std::map<std::string, std::string>& options) {
  ContainerOptions o;
  const auto& valid = option_keys(env);
  for (const auto& [key, value] : options) {
    if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
      std::string help;
      for (const auto& k : valid) help += "\n  " + option_help(k);
      throw UsageError(fmt::format("environment '{}' has no option '{}': valid options are {}{}", env, key,
                                   valid.empty() ? "none" : fmt::format("{}", fmt::join(valid, ", ")), help));
    }
    if (value.empty()) bad_value(env, key, value, "give a value after '='");
    if (key == "image") {
      if (!is_image_reference(value))
        bad_value(env, key, value,
                  "give an image the engine knows by name, NAME[:TAG][@DIGEST] with a lower-case NAME (debian:12, "
                  "localhost/team/img:v2, registry.example:5000/img), or an image ID");
      o.image = value;
    } else if (key == "rootfs" || key == "image_dir") {
      // charliecloud's image_dir= is its rootfs=, in Charliecloud's words.
      if (!o.rootfs.empty()) bad_value(env, key, value, "give image_dir= or rootfs=, not both");
      o.rootfs = value;
    } else if (key == "runtime") {
      o.runtime = one_of(env, key, value,
                         env == "docker" ? std::vector<std::string>{"runc", "runsc"}
                                         : std::vector<std::string>{"runc", "crun"});
    } else if (key == "platform") {
      o.platform = one_of(env, key, value, {"ptrace", "kvm"});
    } else if (key == "cpus") {
      double cpus = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), cpus);
      if (ec != std::errc() || ptr != value.data() + value.size() || !(cpus >= 0.01) || cpus > 4096)
        bad_value(env, key, value, "give a number of CPUs between 0.01 and 4096, e.g. cpus=1 or cpus=0.5");
      o.cpus = cpus;
    } else if (key == "cpuset") {
      if (!parse_cpu_list(value))
        bad_value(env, key, value, "give CPU numbers and ranges, e.g. cpuset=0 or cpuset=0-3,6");
      o.cpuset = value;
    } else if (key == "memory" || key == "shm") {
      auto bytes = parse_byte_size(value);
      if (!bytes) bad_value(env, key, value, "give a size such as 512m, 4g or 1073741824");
      if (key == "memory" && *bytes < 6 * 1024 * 1024)
        bad_value(env, key, value, "the runtimes refuse memory limits under 6m; give at least 6m");
      (key == "memory" ? o.memory_bytes : o.shm_bytes) = bytes;
    } else if (key == "ipc") {
      o.ipc = one_of(env, key, value, env == "docker" || env == "podman"
                                          ? std::vector<std::string>{"private", "shareable", "host"}
                                          : std::vector<std::string>{"private", "host"});
    } else if (key == "network") {
      o.network = one_of(env, key, value, env == "docker" || env == "podman"
                                              ? std::vector<std::string>{"none", "host", "bridge"}
                                              : std::vector<std::string>{"none", "host"});
    } else if (key == "pid") {
      o.pid = one_of(env, key, value, {"private", "host"});
    } else if (key == "scratch") {
      o.scratch = one_of(env, key, value, env == "docker" || env == "podman"
                                              ? std::vector<std::string>{"rootfs", "tmpfs", "volume"}
                                              : std::vector<std::string>{"rootfs", "tmpfs"});
    } else if (key == "file-access") {
      o.file_access = one_of(env, key, value, {"exclusive", "shared"});
    } else if (key == "overlay") {
      o.overlay = one_of(env, key, value, {"none", "root", "all"});
    } else if (key == "seccomp") {
      o.seccomp = value;
    } else if (key == "rootless") {
      // A login name (POSIX's portable set); checked against the machine's
      // users when the environment is checked, not here (labels of runs
      // made elsewhere are parsed too).
      if (value.empty() || value.size() > 32 || value[0] == '-' ||
          !std::all_of(value.begin(), value.end(),
                       [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; }))
        bad_value(env, key, value, "give a user name, e.g. rootless=dlcbench-rootless (scripts/rootless-user.sh)");
      o.rootless_user = value;
    } else if (key == "gpus") {
      o.gpus = one_of(env, key, value, env == "docker" || env == "podman"
                                           ? std::vector<std::string>{"auto", "all", "nodes", "none"}
                                           : std::vector<std::string>{"auto", "nodes", "none"});
    }
  }
  return o;
}

std::optional<std::vector<int>> online_cpus() {
  const std::string list = read_first_line("/sys/devices/system/cpu/online");
  return list.empty() ? std::nullopt : parse_cpu_list(list);
}

void check_options_fit_machine(const std::string& env, const ContainerOptions& o,
                               std::optional<std::vector<int>> online) {
  if (!online) online = online_cpus();
  if (!online || online->empty()) return;
  const auto count = static_cast<double>(online->size());
  if (o.cpus && *o.cpus > count)
    bad_value(env, "cpus", fmt::format("{:g}", *o.cpus),
              fmt::format("this machine has {} CPU{} online; give at most cpus={:g}", online->size(),
                          online->size() == 1 ? "" : "s", count));
  const std::vector<int> asked = parse_cpu_list(o.cpuset).value_or(std::vector<int>{});
  for (int cpu : asked)
      if (!std::binary_search(online->begin(), online->end(), cpu))
        bad_value(env, "cpuset", o.cpuset,
                  fmt::format("CPU {} is not online on this machine; its CPUs are {}", cpu,
                              fmt::join(*online, ",")));
}

std::vector<std::string> fields_changed_by(const std::map<std::string, std::string>& options) {
  std::vector<std::string> fields;
  if (options.count("cpus")) fields.push_back("/cgroup/cpu_quota");
  if (options.count("cpuset")) {
    fields.push_back("/cpu/affinity");
    fields.push_back("/cpu/affinity_count");
    // Fewer CPUs make OpenBLAS (and a library sizing its pool by the CPUs it
    // may use) take fewer threads than --threads: that follows from the
    // cpuset asked for, and no --threads value changes it.
    fields.push_back("/blas/threads");
    fields.push_back("/backend/threads/intra_op");
  }
  if (options.count("memory")) fields.push_back("/cgroup/memory_limit_bytes");
  if (options.count("shm") || options.count("ipc")) fields.push_back("/isolation/shm_bytes");
  if (options.count("pid")) fields.push_back("/isolation/pid_namespace");
  if (options.count("network")) fields.push_back("/isolation/net_namespace");
  if (options.count("scratch")) fields.push_back("/isolation/scratch_fs");
  if (options.count("rootless")) fields.push_back("/isolation/user_namespace");
  if (options.count("seccomp")) {
    fields.push_back("/isolation/seccomp");
    fields.push_back("/isolation/speculation");  // a seccomp filter switches store-bypass mitigation on
  }
  // A different image or root file system is a different set of bits: never
  // exempt, so binary and library differences still stop the comparison.
  return fields;
}

}  // namespace dlcbench
