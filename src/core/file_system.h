// The file system a path lives on: statfs's magic by name, refined by the
// mount table where file systems share a magic. Used by the I/O benchmarks
// (where they write) and by the fingerprint (where data and scratch live).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace dlcbench {

// The file system a path lives on.
struct FileSystemInfo {
  std::string type;          // "ext4", "xfs", "overlay", "tmpfs", ... or "0x..." (statfs magic) when unknown
  std::uint64_t magic = 0;   // statfs f_type
  std::string mount_point;   // from /proc/self/mountinfo; empty if not found
  std::string mount_source;  // e.g. "/dev/vda", "overlay"; empty if not found
};

// The name of a statfs f_type magic ("ext4" for the ext2/3/4 magic), or the
// magic in hex ("0x1234abcd") when it is not one this knows.
std::string fs_type_name(std::uint64_t magic);

// statfs of `path` plus the mount with the longest mount point that contains
// it (in `mountinfo`, /proc/self/mountinfo by default). The mount's type
// refines the magic's name where the magic is shared (ext2/ext3/ext4,
// fuse.*, virtiofs). Throws UsageError when the path cannot be examined.
FileSystemInfo file_system_of(const std::filesystem::path& path,
                              const std::filesystem::path& mountinfo = "/proc/self/mountinfo");

}  // namespace dlcbench
