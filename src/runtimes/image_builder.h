// Builds a container image from this very binary and the closure of its
// shared libraries, so the container runs identical bits with no registry.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dlcbench {

// Where the worker binary lives inside images dlcbench builds.
inline constexpr const char* kImageBinaryPath = "/opt/dlcbench/bin/dlcbench";

struct ImageFile {
  std::filesystem::path host;      // file to copy (symlinks followed)
  std::filesystem::path in_image;  // absolute path inside the image
};

struct ImageContent {
  std::vector<ImageFile> files;
  // Identifies the content: the binary's sha256 plus each library's path,
  // size and modification time. A library upgrade gives a new image.
  std::string content_id;
};

// The binary and every library the dynamic loader resolves for it (`ldd`).
// Throws if a library is not found.
ImageContent worker_image_content(const std::filesystem::path& exe);

// Parses `ldd` output into the library paths it names (the loader included).
std::vector<std::filesystem::path> parse_ldd_output(const std::string& text);

// Writes the image's root file system as a tar archive (via GNU tar).
void write_rootfs_tar(const ImageContent& content, const std::filesystem::path& tar_file,
                      const std::filesystem::path& scratch);

}  // namespace dlcbench
