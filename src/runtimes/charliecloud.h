// Charliecloud's ch-run: the unprivileged HPC runtime. It runs a program in
// a plain folder (a "directory image") inside a user and a mount namespace
// of its own, with the host's PID, network and IPC namespaces, its cgroups,
// /dev, /proc and /sys, and no seccomp filter; no root, no daemon, no
// setuid helper. dlcbench writes the image folder from the same binary and
// library closure as its other images, or runs a user's command in the
// user's own image folder (image_dir=).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runtimes/environment.h"

namespace dlcbench {

std::unique_ptr<Environment> make_charliecloud_environment(const EnvironmentRequest& request,
                                                           const EnvironmentContext& context);

// What every ch-run launch of a run shares.
struct ChRunSetup {
  std::string program;          // ch-run, as found on PATH
  std::filesystem::path image;  // the image folder
  // ch-run's TMPDIR: it binds this folder at the container's /tmp and
  // writes its /etc/passwd and /etc/group there; a private folder of the run.
  std::filesystem::path tmp;
  // $USER for ch-run, which refuses to start without it; empty: it is set.
  std::string user;
};

// ch-run's argument vector and environment for one launch (no files are
// touched). ch-run passes the caller's environment through, as the host
// environment does, so the launch's variables go into the process's
// environment rather than --set-env (which would strip quotes and expand $).
LaunchCommand charliecloud_command(const ChRunSetup& setup, const WorkerLaunch& launch);

// The host folders a launch binds into the image, and where (ch-run 0.31
// binds only folders, always read-write, onto a folder the image must have;
// a folder the I/O benchmarks write in goes to /dlcbench-io).
std::vector<CommandMount> charliecloud_binds(const WorkerLaunch& launch);

// What ch-run binds onto and must find in an image folder: /dev, /proc,
// /sys, /tmp and the files /etc/passwd and /etc/group (it writes its own
// over them). /etc/hosts, /etc/resolv.conf and /home are bound where present.
inline const std::vector<std::string>& charliecloud_required_folders() {
  static const std::vector<std::string> folders = {"dev", "proc", "sys", "tmp"};
  return folders;
}
inline const std::vector<std::string>& charliecloud_required_files() {
  static const std::vector<std::string> files = {"etc/passwd", "etc/group"};
  return files;
}

// The paths (relative, as "etc/passwd") an image folder lacks for ch-run.
std::vector<std::string> charliecloud_image_lacks(const std::filesystem::path& image);

// Lays out an image folder: the image's files (write_rootfs) and the
// folders and empty files ch-run binds onto.
void write_charliecloud_image(const ImageContent& content, const std::filesystem::path& image);

}  // namespace dlcbench
