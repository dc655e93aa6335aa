#include "core/scratch_dir.h"

#include <stdlib.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {

ScratchDir::ScratchDir(const std::string& prefix) {
  std::string name = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(name.data()))
    throw EnvironmentUnavailable("cannot create a scratch folder in " + fs::temp_directory_path().string() +
                                 ": set TMPDIR to a writable folder");
  path_ = name;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace dlcbench
