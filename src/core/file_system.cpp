#include "core/file_system.h"

#include <sys/statfs.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

// "\040" in mountinfo is a space, and so on.
std::string unescape_mount_field(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string oct = field.substr(i + 1, 3);
      if (std::all_of(oct.begin(), oct.end(), [](char ch) { return ch >= '0' && ch <= '7'; })) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

// Whether mount point `mp` contains `path` (both absolute, normalised).
bool mount_contains(const std::string& mp, const std::string& path) {
  if (mp == "/") return true;
  if (path.compare(0, mp.size(), mp) != 0) return false;
  return path.size() == mp.size() || path[mp.size()] == '/';
}

}  // namespace

std::string fs_type_name(std::uint64_t magic) {
  switch (magic) {
    case 0xEF53: return "ext4";  // ext2, ext3 and ext4 share it
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794C7630: return "overlay";
    case 0x01021994: return "tmpfs";
    case 0x858458F6: return "ramfs";
    case 0x6969: return "nfs";
    case 0x2FC12FC1: return "zfs";
    case 0x65735546: return "fuse";
    case 0x01021997: return "9p";
    case 0x9FA0: return "proc";
    case 0x62656572: return "sysfs";
    case 0x1CD1: return "devpts";
    case 0x27E0EB: return "cgroup";
    case 0x63677270: return "cgroup2";
    case 0x73717368: return "squashfs";
    case 0xE0F5E1E2: return "erofs";
    case 0xF2F52010: return "f2fs";
    case 0xFF534D42: return "cifs";
    case 0xFE534D42: return "smb2";
    case 0x00C36400: return "ceph";
    case 0x0BD00BD0: return "lustre";
    case 0x47504653: return "gpfs";
    case 0x4D44: return "vfat";
    case 0x2011BAB0: return "exfat";
    case 0x5346544E: return "ntfs";
    case 0x61756673: return "aufs";
    case 0x9660: return "iso9660";
    case 0x958458F6: return "hugetlbfs";
    case 0x3153464A: return "jfs";
    case 0x52654973: return "reiserfs";
    case 0x01161970: return "gfs2";
    case 0x7461636F: return "ocfs2";
    case 0xCA451A4E: return "bcachefs";
    case 0x64626720: return "debugfs";
    case 0x73636673: return "securityfs";
    case 0x6E736673: return "nsfs";
    case 0x42494E4D: return "binfmt_misc";
    default: return fmt::format("0x{:x}", magic);
  }
}

FileSystemInfo file_system_of(const std::filesystem::path& path, const std::filesystem::path& mountinfo) {
  struct statfs sfs {};
  if (statfs(path.c_str(), &sfs) != 0) {
    throw UsageError(fmt::format("cannot examine the file system of {}: {}", path.string(), std::generic_category().message(errno)));
  }
  FileSystemInfo info;
  info.magic = static_cast<std::uint64_t>(static_cast<unsigned long>(sfs.f_type)) & 0xFFFFFFFFULL;
  info.type = fs_type_name(info.magic);

  std::error_code ec;
  std::string target = std::filesystem::canonical(path, ec).string();
  if (ec) target = std::filesystem::absolute(path, ec).lexically_normal().string();
  std::ifstream in(mountinfo);
  std::string line;
  std::string best_type;
  while (std::getline(in, line)) {
    // id parent major:minor root mount-point options [optional...] - type source super-options
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point, options;
    if (!(fields >> id >> parent >> dev >> root >> mount_point >> options)) continue;
    std::string word;
    while (fields >> word && word != "-") {
    }
    std::string type, source;
    if (word != "-" || !(fields >> type >> source)) continue;
    mount_point = unescape_mount_field(mount_point);
    if (!mount_contains(mount_point, target)) continue;
    // The longest mount point wins; among equal ones the last (mounted on top).
    if (info.mount_point.empty() || mount_point.size() >= info.mount_point.size()) {
      info.mount_point = mount_point;
      info.mount_source = unescape_mount_field(source);
      best_type = type;
    }
  }
  // Where the magic is shared, the mount table knows the exact type.
  if (!best_type.empty()) {
    if (info.magic == 0xEF53 && (best_type == "ext2" || best_type == "ext3" || best_type == "ext4")) {
      info.type = best_type;
    } else if (info.magic == 0x65735546 && (best_type.rfind("fuse", 0) == 0 || best_type == "virtiofs")) {
      info.type = best_type;
    } else if (info.magic == 0x6969 && best_type.rfind("nfs", 0) == 0) {
      info.type = best_type;
    }
  }
  return info;
}

}  // namespace dlcbench
