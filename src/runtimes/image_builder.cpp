#include "runtimes/image_builder.h"

#include <algorithm>
#include <fstream>
#include <future>
#include <thread>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "core/sha.h"
#include "runtimes/environment.h"

namespace fs = std::filesystem;

namespace dlcbench {

namespace {

// The libraries the dynamic loader resolves for `file`: none for a static
// program. Throws EnvironmentUnavailable when ldd fails or one is missing.
std::vector<fs::path> library_closure(const fs::path& file) {
  // Not a program or library (a help text, a settings file): nothing to load.
  if (std::ifstream in(file, std::ios::binary); in) {
    char magic[4] = {};
    in.read(magic, 4);
    if (in.gcount() < 4 || std::string_view(magic, 4) != "\x7f" "ELF") return {};
  }
  auto ldd = capture_output({"ldd", file.string()}, 60);
  if (ldd.out.find("not a dynamic executable") != std::string::npos ||
      ldd.result.stderr_tail.find("not a dynamic executable") != std::string::npos)
    return {};
  if (!ldd.result.ok())
    throw EnvironmentUnavailable(fmt::format("cannot list the libraries of {}: ldd {}\n{}", file.string(),
                                             ldd.result.describe(), ldd.result.stderr_tail));
  return parse_ldd_output(ldd.out);
}

std::string file_identity(const fs::path& file) {
  const auto real = fs::canonical(file);
  return fmt::format("\n{} {} {}", file.string(), fs::file_size(real),
                     fs::last_write_time(real).time_since_epoch().count());
}

}  // namespace

ImageContent worker_image_content(const fs::path& exe, const std::vector<ImageExtra>& extras) {
  ImageContent content;
  // The layout version comes first: a change in how the root file system is
  // laid out must give a new image.
  if (!fs::exists(exe))
    throw EnvironmentUnavailable(fmt::format("{} is missing: it is built with dlcbench (target dlcbench-worker); "
                                             "rebuild with scripts/build.sh",
                                             exe.string()));
  // Layout 5: the worker is dlcbench-worker, no longer the dlcbench binary.
  std::string identity = "layout 5\n" + file_digest(exe, "sha256");
  content.files.push_back({exe, kImageWorkerPath});
  for (const auto& lib : library_closure(exe)) {
    content.files.push_back({lib, lib});
    identity += file_identity(lib);
  }
  const fs::path noop = noop_program_beside(exe);
  if (fs::exists(noop)) {
    content.files.push_back({noop, kImageNoopPath});
    identity += "\nnoop " + file_digest(noop, "sha256");
  }
  // One ldd per extra, several at a time: Open MPI's and PMIx's components
  // are over a hundred, and ldd starts the loader for each.
  std::vector<std::future<std::vector<fs::path>>> closures;
  closures.reserve(extras.size());
  const std::size_t at_once = std::max(2u, std::thread::hardware_concurrency());
  for (const auto& extra : extras) {
    if (closures.size() >= at_once) closures[closures.size() - at_once].wait();
    closures.push_back(std::async(std::launch::async, [path = extra.path] { return library_closure(path); }));
  }
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const ImageExtra& extra = extras[i];
    std::vector<fs::path> libs;
    try {
      libs = closures[i].get();
    } catch (const EnvironmentUnavailable& e) {
      if (!extra.optional) throw;
      content.left_out.push_back(fmt::format("{}: {}", extra.path.string(), e.what()));
      continue;
    }
    content.files.push_back({extra.path, extra.in_image.empty() ? extra.path : extra.in_image});
    identity += fmt::format("{} {}", file_identity(extra.path), extra.in_image.string());
    for (const auto& file : libs) {
      content.files.push_back({file, file});
      identity += file_identity(file);
    }
  }
  content.content_id = string_digest(identity, "sha256");
  return content;
}

ImageContent noop_image_content(const fs::path& exe) {
  const fs::path noop = noop_program_beside(exe);
  if (!fs::exists(noop))
    throw EnvironmentUnavailable(fmt::format("{} is missing: it is built with dlcbench (target dlcbench-noop); "
                                             "rebuild with scripts/build.sh",
                                             noop.string()));
  ImageContent content;
  content.files.push_back({noop, kImageNoopPath});
  content.content_id = string_digest("noop " + file_digest(noop, "sha256"), "sha256");
  return content;
}

ImageContent image_content_for(const fs::path& exe, bool noop_only, const std::vector<ImageExtra>& extras) {
  if (noop_only) return noop_image_content(exe);
  // Every environment of a run asks for the same content: resolve the
  // libraries (hundreds of ldd calls with hpcc's MPI components) once.
  static std::mutex mutex;
  static std::map<std::string, ImageContent> resolved;
  std::string key = exe.string();
  for (const auto& e : extras) {
    key.push_back('\n');
    key.append(e.path.string());
    if (e.optional) key.push_back('?');
    key.append(fmt::format(" {}", e.in_image.string()));
  }
  std::lock_guard lock(mutex);
  auto it = resolved.find(key);
  if (it == resolved.end()) {
    it = resolved.emplace(key, worker_image_content(exe, extras)).first;
    // Once per run: a GPU case that needs one of them fails in containers
    // only, and the host's library list differs from theirs.
    for (const auto& why : it->second.left_out)
      std::cerr << "warning: left out of the container images: " << why << "\n";
  }
  return it->second;
}

void write_rootfs(const ImageContent& content, const fs::path& root) {
  fs::create_directories(root);
  // var/tmp: where io-seq and io-lat write in the container's own file
  // system; dlcbench-tmpfs: where a tmpfs is mounted for them.
  for (const char* dir : {"tmp", "var/tmp", "dlcbench-tmpfs", "data", "proc", "sys", "dev", "etc"})
    fs::create_directories(root / dir);
  for (const char* dir : {"tmp", "var/tmp"}) fs::permissions(root / dir, fs::perms::all | fs::perms::sticky_bit);
  // Runtimes bind-mount these over the image's own; they must exist.
  for (const char* file : {"etc/hostname", "etc/hosts", "etc/resolv.conf"}) std::ofstream(root / file).flush();
  auto place = [&](const fs::path& source, const fs::path& in_image) {
    const fs::path target = root / in_image.relative_path();
    if (fs::exists(fs::symlink_status(target))) return;  // two names of one file
    fs::create_directories(target.parent_path());
    // A hard link avoids copying hundreds of megabytes when on one file
    // system; otherwise copy.
    std::error_code ec;
    fs::create_hard_link(source, target, ec);
    if (ec) fs::copy_file(source, target, fs::copy_options::overwrite_existing);
  };
  for (const auto& f : content.files) {
    const fs::path real = fs::canonical(f.host);
    if (f.in_image != f.host) {  // dlcbench's own programs, at their image paths
      place(real, f.in_image);
      continue;
    }
    // A library: the file at its real path and the name the loader asks
    // for as a symbolic link to it, as on the host, so that the worker maps
    // the same file names in both (the fingerprint compares them).
    place(real, real);
    const fs::path link = root / f.host.relative_path();
    if (real != f.host && !fs::exists(fs::symlink_status(link))) {
      fs::create_directories(link.parent_path());
      fs::create_symlink(real, link);
    }
  }
}

bool tar_only_saw_files_change(const std::string& stderr_text) {
  std::stringstream in(stderr_text);
  std::string line;
  bool any = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (!line.ends_with(": file changed as we read it")) return false;
    any = true;
  }
  return any;
}

namespace {

// What tells the files' contents apart: each one's size and modification
// time, as the content id has them (file_identity). Their change time is
// left out on purpose, see below.
std::string content_stamps(const ImageContent& content) {
  std::string stamps;
  for (const auto& f : content.files) stamps += file_identity(f.host);
  return stamps;
}

}  // namespace

void write_rootfs_tar(const ImageContent& content, const fs::path& tar_file, const fs::path& scratch) {
  const fs::path root = scratch / "rootfs";
  const auto before = content_stamps(content);
  write_rootfs(content, root);
  auto tar = capture_output({"tar", "--create", "--file", tar_file.string(), "--directory", root.string(),
                             "--numeric-owner", "--owner=0", "--group=0", "."},
                            600);
  if (tar.result.ok()) return;
  // The rootfs hard-links the host's libraries. Another run packing its own
  // image at the same moment adds links to the same files, which changes
  // their change time (the link count), and GNU tar reports "file changed
  // as we read it" with status 1. Their bytes did not change unless their
  // size or modification time did (a package upgrade), so that is checked.
  if (tar.result.exec_error.empty() && tar.result.signal == 0 && tar.result.exit_code == 1 &&
      tar_only_saw_files_change(tar.result.stderr_tail)) {
    if (content_stamps(content) == before) return;
    throw EnvironmentUnavailable(
        "a library went into the image while it was being changed (a package upgrade running?): run again "
        "once it has finished");
  }
  throw EnvironmentUnavailable(fmt::format("cannot pack the image file system: tar {}\n{}", tar.result.describe(),
                                           tar.result.stderr_tail));
}

}  // namespace dlcbench
