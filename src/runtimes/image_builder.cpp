#include "runtimes/image_builder.h"

#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "core/sha.h"

namespace fs = std::filesystem;

namespace dlcbench {

std::vector<fs::path> parse_ldd_output(const std::string& text) {
  std::vector<fs::path> libs;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // "\tlibfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)"
    // "\t/lib64/ld-linux-x86-64.so.2 (0x...)"
    // "\tlinux-vdso.so.1 (0x...)"  (in the kernel, nothing to copy)
    // "\tlibbar.so.2 => not found"
    const auto arrow = line.find("=> ");
    std::string rest = arrow == std::string::npos ? line : line.substr(arrow + 3);
    const auto first = rest.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    rest = rest.substr(first);
    if (rest.rfind("not found", 0) == 0)
      throw EnvironmentUnavailable(fmt::format(
          "the dynamic loader cannot find a library dlcbench needs ({}): install it before building "
          "the container image",
          line.substr(line.find_first_not_of(" \t"))));
    if (rest.front() != '/') continue;
    libs.emplace_back(rest.substr(0, rest.find(' ')));
  }
  return libs;
}

ImageContent worker_image_content(const fs::path& exe) {
  auto ldd = capture_output({"ldd", exe.string()}, 60);
  if (!ldd.result.ok())
    throw EnvironmentUnavailable(fmt::format("cannot list the libraries of {}: ldd {}\n{}", exe.string(),
                                             ldd.result.describe(), ldd.result.stderr_tail));
  ImageContent content;
  std::string identity = file_digest(exe, "sha256");
  content.files.push_back({exe, kImageBinaryPath});
  for (const auto& lib : parse_ldd_output(ldd.out)) {
    content.files.push_back({lib, lib});
    const auto real = fs::canonical(lib);
    identity += fmt::format("\n{} {} {}", lib.string(), fs::file_size(real),
                            fs::last_write_time(real).time_since_epoch().count());
  }
  content.content_id = string_digest(identity, "sha256");
  return content;
}

void write_rootfs_tar(const ImageContent& content, const fs::path& tar_file, const fs::path& scratch) {
  const fs::path root = scratch / "rootfs";
  fs::create_directories(root);
  for (const char* dir : {"tmp", "data", "proc", "sys", "dev", "etc"}) fs::create_directories(root / dir);
  fs::permissions(root / "tmp", fs::perms::all | fs::perms::sticky_bit);
  for (const auto& f : content.files) {
    const fs::path target = root / f.in_image.relative_path();
    fs::create_directories(target.parent_path());
    const fs::path real = fs::canonical(f.host);
    // A hard link avoids copying hundreds of megabytes when on one file
    // system; otherwise copy.
    std::error_code ec;
    fs::create_hard_link(real, target, ec);
    if (ec) fs::copy_file(real, target, fs::copy_options::overwrite_existing);
  }
  auto tar = capture_output({"tar", "--create", "--file", tar_file.string(), "--directory", root.string(),
                             "--numeric-owner", "--owner=0", "--group=0", "."},
                            600);
  if (!tar.result.ok())
    throw EnvironmentUnavailable(fmt::format("cannot pack the image file system: tar {}\n{}",
                                             tar.result.describe(), tar.result.stderr_tail));
}

}  // namespace dlcbench
