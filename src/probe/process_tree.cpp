#include "probe/process_tree.h"

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "core/accounting.h"
#include "core/memory.h"

namespace fs = std::filesystem;

namespace dlcbench {

std::optional<pid_t> parent_of(std::string_view stat_text) {
  // The command name is in parentheses and may itself hold ") ": the last
  // one ends it.
  const auto close = stat_text.rfind(')');
  if (close == std::string_view::npos || close + 4 > stat_text.size()) return std::nullopt;
  std::string_view rest = stat_text.substr(close + 2);  // "S 1234 ..."
  const auto space = rest.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  rest = rest.substr(space + 1);
  long ppid = 0;
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ppid = ppid * 10 + (rest[digits++] - '0');
  if (!digits) return std::nullopt;
  return static_cast<pid_t>(ppid);
}

std::vector<pid_t> process_tree(pid_t root, const fs::path& proc) {
  std::multimap<pid_t, pid_t> children;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(proc, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    if (auto parent = parent_of(read_small_file(entry.path() / "stat")))
      children.emplace(*parent, static_cast<pid_t>(std::stol(name)));
  }
  std::vector<pid_t> tree = {root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  return tree;
}

std::optional<LiveUsage> parse_stat_usage(std::string_view stat_text, double tick) {
  const auto close = stat_text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After the command: state (field 3), ppid, ... minflt is field 10, utime 14, cstime 17.
  std::vector<std::string_view> fields;
  std::string_view rest = stat_text.substr(close + 1);
  while (!rest.empty() && fields.size() < 15) {
    const auto start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest = rest.substr(start);
    const auto end = rest.find(' ');
    fields.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  if (fields.size() < 15) return std::nullopt;
  auto field = [&](int number, double& out) {  // number as in proc(5), from 1
    const std::string_view text = fields[static_cast<std::size_t>(number - 3)];
    double value = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    out = value;
    return !text.empty();
  };
  double minflt = 0, cminflt = 0, majflt = 0, cmajflt = 0, utime = 0, stime = 0, cutime = 0, cstime = 0;
  if (!field(10, minflt) || !field(11, cminflt) || !field(12, majflt) || !field(13, cmajflt) || !field(14, utime) ||
      !field(15, stime) || !field(16, cutime) || !field(17, cstime))
    return std::nullopt;
  return LiveUsage{(utime + cutime) * tick, (stime + cstime) * tick, minflt + cminflt, majflt + cmajflt};
}

LiveUsage live_usage(const std::vector<pid_t>& pids, const fs::path& proc) {
  const long ticks = sysconf(_SC_CLK_TCK);
  const double tick = ticks > 0 ? 1.0 / static_cast<double>(ticks) : 0.01;
  LiveUsage total;
  for (pid_t pid : pids)
    if (const auto u = parse_stat_usage(read_small_file(proc / std::to_string(pid) / "stat"), tick)) {
      total.user_seconds += u->user_seconds;
      total.system_seconds += u->system_seconds;
      total.minor_faults += u->minor_faults;
      total.major_faults += u->major_faults;
    }
  return total;
}

bool is_shared_library_name(std::string_view file) {
  // "libc.so.6", "libfoo.so", "libopenblasp-r0.3.21.so"; not "ld.so.cache".
  for (auto at = file.find(".so"); at != std::string_view::npos; at = file.find(".so", at + 1)) {
    const std::string_view after = file.substr(at + 3);
    if (after.empty() || (after[0] == '.' && after.size() > 1 && after[1] >= '0' && after[1] <= '9')) return true;
  }
  return false;
}

std::set<std::string> mapped_libraries(std::string_view maps_text) {
  std::set<std::string> out;
  std::size_t at = 0;
  while (at < maps_text.size()) {
    auto end = maps_text.find('\n', at);
    if (end == std::string_view::npos) end = maps_text.size();
    const std::string_view line = maps_text.substr(at, end - at);
    at = end + 1;
    const auto slash = line.find('/');  // the path is the last field and starts with '/'
    if (slash == std::string_view::npos) continue;
    std::string_view path = line.substr(slash);
    if (path.size() > 10 && path.substr(path.size() - 10) == " (deleted)") path.remove_suffix(10);
    if (is_shared_library_name(path.substr(path.rfind('/') + 1))) out.emplace(path);
  }
  return out;
}

std::optional<std::string> elf_build_id(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header)) return std::nullopt;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > 512)
    return std::nullopt;
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  if (!in.read(reinterpret_cast<char*>(segments.data()),
               static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr))))
    return std::nullopt;
  for (const auto& segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > (1u << 20)) continue;
    std::string notes(segment.p_filesz, '\0');
    in.seekg(static_cast<std::streamoff>(segment.p_offset));
    if (!in.read(notes.data(), static_cast<std::streamsize>(notes.size()))) return std::nullopt;
    auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    for (std::size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr note{};
      std::memcpy(&note, notes.data() + at, sizeof note);
      const std::size_t name_at = at + sizeof note, desc_at = name_at + align4(note.n_namesz);
      if (desc_at + note.n_descsz > notes.size()) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && notes.compare(name_at, 3, "GNU") == 0) {
        std::string hex;
        for (std::size_t i = 0; i < note.n_descsz; ++i) {
          static constexpr char digits[] = "0123456789abcdef";
          const auto byte = static_cast<unsigned char>(notes[desc_at + i]);
          hex += digits[byte >> 4];
          hex += digits[byte & 15];
        }
        return hex;
      }
      at = desc_at + align4(note.n_descsz);
    }
  }
  return std::nullopt;
}

LoadedLibrary describe_library(const std::string& path) {
  LoadedLibrary lib;
  lib.path = path;
  lib.name = fs::path(path).filename().string();
  std::error_code error;
  const fs::path real = fs::canonical(path, error);
  lib.real_name = error ? lib.name : real.filename().string();
  lib.size = fs::file_size(path, error);
  if (error) lib.size = 0;
  lib.build_id = elf_build_id(path).value_or("");
  return lib;
}

nlohmann::json libraries_json(const std::map<std::string, LoadedLibrary>& libraries) {
  std::vector<const LoadedLibrary*> sorted;
  for (const auto& [path, lib] : libraries) sorted.push_back(&lib);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return std::tie(a->name, a->path) < std::tie(b->name, b->path); });
  nlohmann::json files = nlohmann::json::array();
  for (const auto* lib : sorted)
    files.push_back({{"name", lib->name}, {"real_name", lib->real_name}, {"size", lib->size},
                     {"build_id", lib->build_id}, {"path", lib->path}});
  return {{"files", files}, {"count", files.size()}};
}

std::map<std::string, ThreadTimes> thread_times(const std::vector<pid_t>& pids, const fs::path& proc) {
  std::map<std::string, ThreadTimes> times;
  for (pid_t pid : pids) {
    std::error_code error;
    const fs::path tasks = proc / std::to_string(pid) / "task";
    for (const auto& task : fs::directory_iterator(tasks, error))
      if (auto t = parse_schedstat(read_small_file(task.path() / "schedstat")))
        times[std::to_string(pid) + "/" + task.path().filename().string()] = *t;
  }
  return times;
}

}  // namespace dlcbench
