#include "store/store_location.h"

#include <sys/statfs.h>

#include <cstdlib>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

bool is_server_url(const std::string& text) {
  return text.rfind("postgresql://", 0) == 0 || text.rfind("postgres://", 0) == 0;
}

StoreLocation location_of(const std::string& text, const std::string& source) {
  StoreLocation l;
  l.source = source;
  if (is_server_url(text)) {
    l.kind = StoreLocation::Kind::postgresql;
    l.url = text;
    return l;
  }
  if (text.find("://") != std::string::npos)
    throw UsageError(fmt::format("{} {}: a store is a SQLite file path or a postgresql:// URL (e.g. "
                                 "postgresql://dlcbench@db.example.org/dlcbench)",
                                 source, text));
  l.path = std::filesystem::absolute(text).lexically_normal();
  return l;
}

}  // namespace

std::filesystem::path default_store_path() {
  if (const char* p = std::getenv("XDG_DATA_HOME"); p && *p) return std::filesystem::path(p) / "dlcbench" / "store.sqlite";
  if (const char* p = std::getenv("HOME"); p && *p)
    return std::filesystem::path(p) / ".local" / "share" / "dlcbench" / "store.sqlite";
  return std::filesystem::current_path() / "dlcbench-store.sqlite";
}

std::optional<StoreLocation> store_location(const std::string& option, bool no_store) {
  if (no_store) return std::nullopt;
  if (!option.empty()) {
    if (option == "off") return std::nullopt;
    return location_of(option, "--store");
  }
  if (const char* env = std::getenv("DLCBENCH_STORE"); env) {
    const std::string text = env;
    if (text == "off") return std::nullopt;
    if (text.empty())
      throw UsageError("DLCBENCH_STORE is set but empty: give it a SQLite file path, a postgresql:// URL or off");
    return location_of(text, "DLCBENCH_STORE");
  }
  StoreLocation l;
  l.path = default_store_path();
  l.source = "the default store";
  return l;
}

std::string network_file_system(const std::filesystem::path& folder) {
  struct statfs s {};
  if (statfs(folder.c_str(), &s) != 0) return "";
  // The magic numbers of linux/magic.h and the file systems' own headers.
  switch (static_cast<unsigned long>(s.f_type)) {
    case 0x6969UL: return "nfs";
    case 0x517BUL: return "smb";
    case 0xFF534D42UL: return "cifs";
    case 0xFE534D42UL: return "smb2";
    case 0x0BD00BD0UL: return "lustre";
    case 0x47504653UL: return "gpfs";
    case 0x00C36400UL: return "ceph";
    case 0x19830326UL: return "beegfs";
    case 0x01021997UL: return "9p";
    case 0x65735546UL: return "fuse";
    case 0x61636673UL: return "afs";
    default: return "";
  }
}

}  // namespace dlcbench
