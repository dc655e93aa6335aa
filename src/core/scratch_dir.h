// A private scratch folder (mode 0700, from mkdtemp) that is removed with
// everything in it when the owner goes out of scope.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dlcbench {

class ScratchDir {
 public:
  // Creates <parent>/<prefix>-XXXXXX ($TMPDIR by default); throws
  // EnvironmentUnavailable if it cannot.
  explicit ScratchDir(const std::string& prefix,
                      const std::filesystem::path& parent = std::filesystem::temp_directory_path());
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The folders ScratchDir(prefix) made in $TMPDIR that still exist, e.g. those
// of a session killed with SIGKILL, which could not remove them.
std::vector<std::filesystem::path> scratch_dirs_left(const std::string& prefix);

// Removes those folders but `keep` (the current session's), first calling
// `before_removal` on each (to stop what still runs from it); returns their
// paths. Throws std::runtime_error if one cannot be removed.
std::vector<std::string> remove_scratch_dirs_left(
    const std::string& prefix, const std::filesystem::path& keep = {},
    const std::function<void(const std::filesystem::path&)>& before_removal = {});

}  // namespace dlcbench
