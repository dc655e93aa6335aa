// What isolates the worker from the machine, beyond cgroups and CPUs: the
// seccomp filter and the speculation mitigations it can bring, /dev/shm and
// the IPC namespace, the locked-memory limit, transparent huge pages, the
// file systems under the data and scratch folders, and the threading
// variables. A container differs from the host in several of these by
// design; the comparison shows them as possible causes of an overhead, never
// as a reason to stop.
//
// Each reader takes `root` (default "/") so tests can point it at a fake
// file system, as detect_container() does.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace dlcbench {

// The folders whose file systems the fingerprint records; an empty path is
// "none applies" (recorded as null): no data folder with --data synthetic.
struct FingerprintPaths {
  std::filesystem::path data;     // the data folder the worker reads
  std::filesystem::path scratch;  // where it writes: --path, or the temp folder
};

// The "Key:\tvalue" lines of a /proc/<pid>/status text by key, values with
// their leading blanks trimmed.
std::map<std::string, std::string> parse_proc_status(const std::string& text);
// Those of root/proc/self/status; empty when it cannot be read.
std::map<std::string, std::string> read_proc_status(const std::filesystem::path& root = "/");

// The process's own speculation controls, from its status lines:
// {"store_bypass": Speculation_Store_Bypass, "indirect_branch":
// SpeculationIndirectBranch}, each null where the kernel does not say. A
// seccomp filter can switch the store-bypass mitigation on for the process.
nlohmann::json process_speculation(const std::map<std::string, std::string>& status);

// The kernel's speculation mitigations: file name -> first line of each file
// in root/sys/devices/system/cpu/vulnerabilities ("spectre_v2" ->
// "Mitigation: Retpolines; ..."); nullopt when the folder is absent (gVisor,
// old kernels, /sys not mounted).
std::optional<std::map<std::string, std::string>> speculation_mitigations(const std::filesystem::path& root = "/");

// Size of root/dev/shm in bytes (statvfs: blocks times fragment size), the
// whole file system, not what is free; nullopt when it is missing.
std::optional<std::uint64_t> shm_bytes(const std::filesystem::path& root = "/");

// The IPC namespace, as readlink(root/proc/self/ns/ipc) gives it
// ("ipc:[4026531839]"); nullopt when it cannot be read.
std::optional<std::string> ipc_namespace(const std::filesystem::path& root = "/");
// The same for any namespace kind ("net", "pid", "ipc", ...).
std::optional<std::string> own_namespace(const std::string& kind, const std::filesystem::path& root = "/");

// RLIMIT_MEMLOCK. A limit is a number of bytes or the string "unlimited"
// (RLIM_INFINITY); the fields are null when getrlimit fails.
nlohmann::json rlimit_value(rlim_t limit);
struct MemlockLimits {
  nlohmann::json soft;
  nlohmann::json hard;
};
MemlockLimits memlock_limits();

// The word in brackets of a sysfs choice file: "always [madvise] never" ->
// "madvise"; nullopt when there is none.
std::optional<std::string> bracketed_choice(const std::string& text);
// Transparent huge pages: `setting` is "enabled" or "defrag", read from
// root/sys/kernel/mm/transparent_hugepage/<setting>; nullopt when absent.
std::optional<std::string> transparent_hugepages(const std::string& setting,
                                                 const std::filesystem::path& root = "/");

// The file-system type of the one `path` lies on (core/file_system.h, with
// root/proc/self/mountinfo); nullopt for an empty path or one that cannot be
// statted.
std::optional<std::string> file_system_type(const std::filesystem::path& path,
                                            const std::filesystem::path& root = "/");

// The user namespace's ID mapping, from root/proc/self/uid_map: "none" in the
// first (initial) namespace, whose map is the identity over every ID; else
// its ranges as "inside:outside:count" joined by commas, e.g.
// "0:1001:1,1:100000:65536" for rootless Podman. nullopt when unreadable.
std::optional<std::string> user_namespace_map(const std::filesystem::path& root = "/");

// Every environment variable whose name starts with OMP_, MKL_, OPENBLAS_,
// KMP_ or GOMP_, by name (sorted), with its value.
std::map<std::string, std::string> thread_variables();

// The fingerprint's "isolation" object: the fields above, with `seccomp` as
// process_security() read it ("disabled", "strict", "filter") and the
// process's status lines for its speculation controls. Paths left empty in
// `paths` give null.
nlohmann::json isolation_fingerprint(const std::string& seccomp, const std::map<std::string, std::string>& status,
                                     const FingerprintPaths& paths, const std::filesystem::path& root = "/");

}  // namespace dlcbench
