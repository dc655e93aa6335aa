// A private scratch folder (mode 0700, from mkdtemp) that is removed with
// everything in it when the owner goes out of scope.
#pragma once

#include <filesystem>
#include <string>

namespace dlcbench {

class ScratchDir {
 public:
  // Creates $TMPDIR/<prefix>-XXXXXX; throws EnvironmentUnavailable if it cannot.
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace dlcbench
