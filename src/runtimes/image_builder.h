// Builds a container image from this very binary and the closure of its
// shared libraries, so the container runs identical bits with no registry.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dlcbench {

// Where the worker program (dlcbench-worker) lives inside images dlcbench
// builds; the CUDA plugin and dlcbench-noop lie beside it.
inline constexpr const char* kImageWorkerPath = "/opt/dlcbench/bin/dlcbench-worker";
// Where the dlcbench binary itself lives in the image `k8s --save-image`
// writes, whose pods run `dlcbench run` (beside the worker).
inline constexpr const char* kImageBinaryPath = "/opt/dlcbench/bin/dlcbench";
// The static program that exits at once, for the startup workload.
inline constexpr const char* kImageNoopPath = "/opt/dlcbench/bin/dlcbench-noop";

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

// A program or library beyond dlcbench's own that the image must hold (an
// external tool the plan runs), at its host path, with its libraries.
struct ImageExtra {
  std::filesystem::path path;
  // Left out, rather than failing the build, when the loader cannot find one
  // of its libraries (a plugin its program can do without).
  bool optional = false;
  // Where the file goes in the image; empty: at its host path. Its
  // libraries always go at their host paths.
  std::filesystem::path in_image;
};

// Every file named *`extension` in each of `folders` (a folder that is not
// there is skipped), as optional extras: the plugins a program loads with
// dlopen, or the data files it reads.
std::vector<ImageExtra> optional_extras_in(const std::vector<std::filesystem::path>& folders,
                                           const std::string& extension);

// Where Debian's Open MPI keeps the components it loads with dlopen.
inline const std::vector<std::filesystem::path>& open_mpi_component_folders() {
  static const std::vector<std::filesystem::path> folders = {"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3",
                                                             "/usr/lib/aarch64-linux-gnu/openmpi/lib/openmpi3"};
  return folders;
}

// The binary and every library the dynamic loader resolves for it (`ldd`),
// the noop program built beside it, and the extras with their libraries.
// Throws if a library is not found.
ImageContent worker_image_content(const std::filesystem::path& exe, const std::vector<ImageExtra>& extras = {});

// Only the noop program: enough to check that a runtime starts containers.
ImageContent noop_image_content(const std::filesystem::path& exe);

// Either of the two, as the context asks.
ImageContent image_content_for(const std::filesystem::path& exe, bool noop_only,
                               const std::vector<ImageExtra>& extras = {});

// Parses `ldd` output into the library paths it names (the loader included).
std::vector<std::filesystem::path> parse_ldd_output(const std::string& text);

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
