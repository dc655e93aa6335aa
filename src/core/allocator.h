// The C library allocator's settings, pinned for every worker.
//
// glibc raises its mmap threshold as large blocks are freed, so whether a
// training step's big temporaries come from the heap or from fresh mmap()
// pages (a page fault per 4 KiB, every step) depends on what the process
// happened to free before. Two processes running the same loop can then
// differ by 10% for no reason that has to do with the environment. The
// worker pins the thresholds instead, the same everywhere; a user who sets
// MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_ keeps their choice.
#pragma once

#include <nlohmann/json.hpp>

namespace dlcbench {

inline constexpr int kMmapThresholdBytes = 32 << 20;   // glibc's own upper bound for the dynamic value
inline constexpr int kTrimThresholdBytes = 256 << 20;

// Applies the settings and returns them for the fingerprint.
nlohmann::json pin_allocator_settings();

}  // namespace dlcbench
