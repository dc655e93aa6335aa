#include "core/allocator.h"

#include <malloc.h>

#include <cstdlib>

namespace dlcbench {

nlohmann::json pin_allocator_settings() {
  const char* mmap_env = std::getenv("MALLOC_MMAP_THRESHOLD_");
  const char* trim_env = std::getenv("MALLOC_TRIM_THRESHOLD_");
  if (mmap_env || trim_env)
    return {{"library", "glibc"}, {"source", "environment"},
            {"mmap_threshold", mmap_env ? mmap_env : "glibc default"},
            {"trim_threshold", trim_env ? trim_env : "glibc default"}};
  const bool ok = mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1;
  return {{"library", "glibc"},
          {"source", ok ? "dlcbench" : "mallopt failed; glibc defaults"},
          {"mmap_threshold", std::to_string(kMmapThresholdBytes)},
          {"trim_threshold", std::to_string(kTrimThresholdBytes)}};
}

}  // namespace dlcbench
