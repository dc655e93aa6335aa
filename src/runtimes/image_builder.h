// Builds a container image from this very binary and the closure of its
// shared libraries, so the container runs identical bits with no registry.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/image_files.h"

namespace dlcbench {

struct ImageFile {
  std::filesystem::path host;      // file to copy (symlinks followed)
  std::filesystem::path in_image;  // absolute path inside the image
};

struct ImageContent {
  std::vector<ImageFile> files;
  // Identifies the content: the binary's sha256 plus each library's path,
  // size and modification time. A library upgrade gives a new image.
  std::string content_id;
  // Optional extras left out, each with why (a library ldd cannot find).
  std::vector<std::string> left_out;
};

// The binary and every library the dynamic loader resolves for it (`ldd`),
// the noop program built beside it, and the extras with their libraries.
// Throws if a library is not found.
ImageContent worker_image_content(const std::filesystem::path& exe, const std::vector<ImageExtra>& extras = {});

// Only the noop program: enough to check that a runtime starts containers.
ImageContent noop_image_content(const std::filesystem::path& exe);

// Either of the two, as the context asks.
ImageContent image_content_for(const std::filesystem::path& exe, bool noop_only,
                               const std::vector<ImageExtra>& extras = {});

// Lays the image's root file system out in `root` (hard links where the file
// system allows, copies otherwise).
void write_rootfs(const ImageContent& content, const std::filesystem::path& root);

// Whether GNU tar's complaints are all "file changed as we read it" (and
// there is at least one).
bool tar_only_saw_files_change(const std::string& stderr_text);

// Writes the image's root file system as a tar archive (via GNU tar).
void write_rootfs_tar(const ImageContent& content, const std::filesystem::path& tar_file,
                      const std::filesystem::path& scratch);

}  // namespace dlcbench
