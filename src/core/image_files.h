// The files a container image of dlcbench holds beyond the worker: where
// its programs go, and the extras a plan needs (external tools, the CUDA
// plugin and their libraries). Plain names and paths: the runtimes build the
// image (runtimes/image_builder.h); the workloads and the GPU loader only
// say what goes in.
#pragma once

#include <filesystem>
#include <string>
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

// Parses `ldd` output into the library paths it names (the loader included).
std::vector<std::filesystem::path> parse_ldd_output(const std::string& text);

}  // namespace dlcbench
