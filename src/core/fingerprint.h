// What the worker can see of the environment it runs in. The worker prints
// this before its samples; the orchestrator compares fingerprints to prove
// that host and container ran the same bits with the same settings.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/isolation.h"

namespace dlcbench {

struct ContainerDetection {
  bool in_container = false;
  std::string runtime;      // "docker", "podman", "oci", or "" when unknown / none
  std::string detected_by;  // the evidence, e.g. "/.dockerenv exists"
};
// Looks for the marks container runtimes leave: /.dockerenv,
// /run/.containerenv, the `container` variable, container ids in
// /proc/1/cgroup. `root` lets tests point it at a fake file system.
ContainerDetection detect_container(const std::filesystem::path& root = "/");

// CPU quota in CPUs (quota / period) and memory limit in bytes of the
// worker's own cgroup, for cgroup v1 and v2; nullopt when unlimited.
struct CgroupLimits {
  std::optional<double> cpu_quota;
  std::optional<std::uint64_t> memory_limit_bytes;
  std::string version;  // "v1", "v2" or "hybrid"
};
CgroupLimits read_cgroup_limits(const std::filesystem::path& root = "/");

// This process's cgroup path (from root/proc/self/cgroup) for a v1
// controller ("cpu"), or for v2 with ""; "/" when not found.
std::string own_cgroup(const std::filesystem::path& root, const std::string& controller);

// The BLAS that the process actually loaded, asked through OpenBLAS's own
// entry points where present (so it reports the kernel it really picked).
nlohmann::json blas_info();

// The whole machine/environment part of the fingerprint (the back end adds
// its own library versions and threads). `paths` names the data and scratch
// folders whose file systems "isolation" records (null where none applies).
nlohmann::json environment_fingerprint(const FingerprintPaths& paths = {});
// All of it but the code's identity (binary hash, version, libc, mapped
// libraries, BLAS): where a process runs, whatever it is. dlcbench-probe
// records this for a user's command.
nlohmann::json surroundings_fingerprint(const FingerprintPaths& paths = {});

std::string self_executable_sha256();

// What kind of machine this is, for readers of a report whose "host" may
// itself be a guest: "gVisor sandbox" (its kernel's fixed /proc/version),
// "virtual machine" (the CPU's hypervisor flag, read_cpu_isa(); the DMI
// vendor and product name it where the hypervisor gives them) or "bare
// metal"; with what it was detected by. The texts are those files'.
nlohmann::json machine_kind(std::string_view proc_version, bool hypervisor_flag, std::string_view dmi_vendor,
                            std::string_view dmi_product);

// How the process is confined, from /proc/self/status: seccomp mode
// ("disabled", "strict", "filter"), no_new_privs, the effective capability
// set (hex).
nlohmann::json process_security();
// The same from status lines already read (read_proc_status()).
nlohmann::json process_security(const std::map<std::string, std::string>& status);

// The variables that change which GPU CUDA uses and how cuBLAS and cuDNN
// compute. `dlcbench run` passes those set in its environment to every
// worker (a container would not see them otherwise), and fingerprints them.
inline constexpr const char* kCudaVariables[] = {"CUDA_VISIBLE_DEVICES",   "CUDA_DEVICE_ORDER",
                                                 "CUDA_LAUNCH_BLOCKING",   "CUDA_MODULE_LOADING",
                                                 "NVIDIA_TF32_OVERRIDE",   "CUBLAS_WORKSPACE_CONFIG",
                                                 "CUDA_DEVICE_MAX_CONNECTIONS"};

// Whether a file name is one of the NVIDIA driver's user-space libraries:
// libcuda, libcudadebugger and libnvidia-*, versioned names only
// (libcuda.so.1, libcuda.so.580.95.05).
bool is_gpu_driver_library(const std::string& file_name);

// The shared libraries mapped into this process, by file name and size (not
// path: a container holds the same files elsewhere): their count and a
// sha256 over the sorted list. Reading every file's content would cost
// seconds per launch. The driver's libraries are listed by name up to
// ".so": a container that gets them by bind mount maps libcuda.so.1 where
// the host maps the file that name links to, libcuda.so.580.95.05.
nlohmann::json loaded_libraries(const std::filesystem::path& maps_file = "/proc/self/maps");

// "0-3,6" style list of the CPUs this process may run on.
std::string affinity_list();

}  // namespace dlcbench
