// The image the pods of `dlcbench k8s` run: the same files dlcbench's own
// images hold (dlcbench-worker, its shared libraries, dlcbench-noop), and
// the dlcbench binary beside them, as a root file system in a tar archive
// for `docker import` and a push to the cluster's registry.
#pragma once

#include <filesystem>
#include <string>

namespace dlcbench {

// Writes the archive of `exe` (the dlcbench binary) and its worker into
// `file`; returns the content id the image is labelled with.
std::string write_k8s_image(const std::filesystem::path& exe, const std::filesystem::path& file);

}  // namespace dlcbench
