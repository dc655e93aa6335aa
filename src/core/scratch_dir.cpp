#include "core/scratch_dir.h"

#include <stdlib.h>

#include <stdexcept>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {

namespace {
constexpr std::string_view kUniqueSuffix = "-XXXXXX";
}

ScratchDir::ScratchDir(const std::string& prefix, const fs::path& parent) {
  std::string name = (parent / (prefix + std::string(kUniqueSuffix))).string();
  if (!mkdtemp(name.data()))
    throw EnvironmentUnavailable("cannot create a scratch folder in " + parent.string() +
                                 (parent == fs::temp_directory_path() ? ": set TMPDIR to a writable folder"
                                                                      : ": make it writable"));
  path_ = name;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<fs::path> scratch_dirs_left(const std::string& prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = entry.path().filename().string();
    // mkdtemp replaced the six X's; a longer name is another prefix's folder.
    if (name.size() == prefix.size() + kUniqueSuffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name[prefix.size()] == '-' && !entry.is_symlink() && entry.is_directory())
      found.push_back(entry.path());
  }
  return found;
}

std::vector<std::string> remove_scratch_dirs_left(const std::string& prefix, const fs::path& keep,
                                                  const std::function<void(const fs::path&)>& before_removal) {
  std::vector<std::string> removed;
  for (const auto& dir : scratch_dirs_left(prefix)) {
    if (dir == keep) continue;
    if (before_removal) before_removal(dir);
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec) throw std::runtime_error("cannot remove " + dir.string() + ": " + ec.message());
    removed.push_back(dir.string());
  }
  return removed;
}

}  // namespace dlcbench
