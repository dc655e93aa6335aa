// How much memory a benchmark may still allocate here: what the kernel
// reports available, lowered to the cgroup memory limit of the process (a
// container's limit included). Every size check before a run uses it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace dlcbench {

// MemAvailable from <root>/proc/meminfo, lowered to the cgroup memory limit
// when one is set (v2 <root>/sys/fs/cgroup/memory.max, v1
// .../memory/memory.limit_in_bytes, both at the mount's root and in the
// cgroup <root>/proc/self/cgroup names). -1 when nothing could be read.
// The limit itself, not limit minus usage: usage counts page cache the
// kernel would reclaim.
std::int64_t usable_memory_bytes(const std::filesystem::path& root = "/");

// Share of that a benchmark's own arrays may take; the rest is left to the
// process (libraries, the BLAS's buffers) and the system.
inline constexpr double kBenchmarkMemoryShare = 0.9;

// The first line of a small sysfs, procfs or cgroup file, trailing blanks
// trimmed; "" when it cannot be read.
std::string read_first_line(const std::filesystem::path& file);
// The whole of such a file; "" when it cannot be read.
std::string read_small_file(const std::filesystem::path& file);

// 1536 -> "1.5 KiB", 25e9 -> "23.28 GiB".
std::string format_memory_bytes(double bytes);

}  // namespace dlcbench
