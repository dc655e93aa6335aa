// Options a user sets per environment on the command line, e.g.
// "docker:cpus=1,memory=4g" or "runc:rootfs=/srv/root". Parsed and checked
// once, then each runtime turns them into its own flags or OCI config.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dlcbench {

struct ContainerOptions {
  std::string image;                           // docker, podman: image to run
  std::string rootfs;                          // runc, crun, runsc, chroot: root file system; charliecloud: image_dir
  std::string runtime;                         // podman: runc, crun; docker: runc, runsc
  std::string platform;                        // runsc: ptrace or kvm; empty: ptrace
  std::optional<double> cpus;                  // CPU quota in CPUs
  std::string cpuset;                          // "0-3,6": CPUs the container may use
  std::optional<std::uint64_t> memory_bytes;   // memory limit
  std::optional<std::uint64_t> shm_bytes;      // size of /dev/shm
  std::string ipc;                             // "private", "host", "shareable"
  std::string pid;                             // "private" or "host": the PID namespace; empty: private
  std::string network = "none";                // "none", "host", "bridge"
  // docker, podman: "unconfined" or a profile file; empty: the engine's
  // default. runc, crun, runsc: "default" (the engines' default profile,
  // runtimes/seccomp_profile.h), a profile file, or empty/"unconfined": none,
  // as their bundles have by default.
  std::string seccomp;
  // Where the worker's scratch writes go when a workload writes to the
  // container's own file system, io-seq or io-lat with --path rootfs: empty or
  // "rootfs" there; "tmpfs" a tmpfs; "volume" (docker, podman) an anonymous
  // volume, the engine's storage outside its overlay.
  std::string scratch;
  std::string file_access;                     // runsc: exclusive (default) or shared
  std::string overlay;                         // runsc: none (default), root or all (in the sandbox's memory)
  std::string gpus = "auto";                   // GPU access: auto, all, nodes, none (runtimes/gpu_access.h)
  // podman: the unprivileged user Podman runs as (rootless Podman: a user
  // namespace, fuse-overlayfs or vfs storage); empty: Podman as dlcbench runs.
  std::string rootless_user;
};

// The option keys each environment accepts, in the order help lists them.
const std::vector<std::string>& option_keys(const std::string& environment);

// One line of help per key, e.g. "cpus=N  CPU quota (docker --cpus)".
std::string option_help(const std::string& key);

// Checks every value and fills the struct. Throws UsageError naming the
// environment, the option and what a valid value looks like.
ContainerOptions parse_container_options(const std::string& environment,
                                         const std::map<std::string, std::string>& options);

// Values that parse but that this machine cannot honour, refused before a
// run: a CPU quota above the CPUs it has online (Docker refuses every launch,
// and for runc and crun it limits nothing), a cpuset naming CPUs it does not
// have. Kept apart from parse_container_options, which also reads the labels
// of runs made on other machines. `online` defaults to
// /sys/devices/system/cpu/online; nothing is checked when it is unknown.
void check_options_fit_machine(const std::string& environment, const ContainerOptions& options,
                               std::optional<std::vector<int>> online = std::nullopt);

// Why `threads` compute threads do not fit the CPUs `options` give the
// container, with the fix; "" when they fit. A quota (cpus=1) smaller than
// the thread pool is throttled by the kernel (CFS) whenever the threads use
// it up; a cpuset smaller than the pool makes the threads take turns. Either
// is then measured as the container's overhead.
std::string threads_beyond_cpus(const std::string& label, const ContainerOptions& options, int threads);

// The CPUs online on this machine; nullopt when sysfs cannot be read.
std::optional<std::vector<int>> online_cpus();

// "0-3,6" -> sorted CPU numbers; nullopt if the text is not a CPU list.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

// The fingerprint fields (JSON pointers) an option is meant to change, so a
// difference there is shown as asked for rather than stopping the comparison.
std::vector<std::string> fields_changed_by(const std::map<std::string, std::string>& options);

}  // namespace dlcbench
