// What dlcbench-probe reads of the command it runs, from /proc while the
// command's processes live: which processes belong to it, the shared
// libraries they map (with each file's GNU build id, which names the exact
// build of a library whatever its path), and their threads' run-queue wait.
// Each reader takes the /proc folder (default "/proc") so tests can point it
// at a fake one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/accounting.h"

namespace dlcbench {

// The parent's pid from a /proc/PID/stat text ("pid (comm) state ppid ...";
// comm may hold spaces and parentheses); nullopt when it does not parse.
std::optional<pid_t> parent_of(std::string_view stat_text);

// `root` and every process descended from it that lives now.
std::vector<pid_t> process_tree(pid_t root, const std::filesystem::path& proc = "/proc");

// One process's use so far from its /proc/PID/stat text: user and system
// time and faults, its own and its waited-for children's (utime, stime,
// cutime, cstime, minflt, cminflt, majflt, cmajflt); nullopt when it does
// not parse. `tick` is the length of a clock tick in seconds.
std::optional<LiveUsage> parse_stat_usage(std::string_view stat_text, double tick);
// The sum over `pids` (those that still live), read now.
LiveUsage live_usage(const std::vector<pid_t>& pids, const std::filesystem::path& proc = "/proc");

// Whether a file name is a shared library's: ".so" at its end or before a
// version ("libc.so.6"); "ld.so.cache" is not.
bool is_shared_library_name(std::string_view file);
// The files a /proc/PID/maps text maps that are shared libraries, by path,
// each once.
std::set<std::string> mapped_libraries(std::string_view maps_text);

// The GNU build id of an ELF file, in hex; nullopt when it has none or is
// not a 64-bit little-endian ELF file.
std::optional<std::string> elf_build_id(const std::filesystem::path& file);

// One library as the command loaded it.
struct LoadedLibrary {
  std::string path;       // as mapped
  std::string name;       // its file name, e.g. "libopenblas.so.0"
  std::string real_name;  // the file the name links to, e.g. "libopenblasp-r0.3.21.so"
  std::uintmax_t size = 0;
  std::string build_id;   // "" when it has none
};
LoadedLibrary describe_library(const std::string& path);
// {"files": [{"name", "real_name", "size", "build_id", "path"}...] sorted by
// name, "count"}.
nlohmann::json libraries_json(const std::map<std::string, LoadedLibrary>& libraries);

// The CPU time and run-queue wait of every thread of `pids`, read now:
// /proc/PID/task/TID/schedstat. Keyed by "pid/tid", so a reader that keeps
// the last reading of each thread counts threads that ended between two
// readings up to their last one.
std::map<std::string, ThreadTimes> thread_times(const std::vector<pid_t>& pids,
                                                const std::filesystem::path& proc = "/proc");

}  // namespace dlcbench
