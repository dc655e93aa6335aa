// Where the results store lives: a SQLite file (the default, under the
// user's data folder) or a PostgreSQL server, chosen once at the edge from
// --store, DLCBENCH_STORE or the default, and passed on typed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace dlcbench {

struct StoreLocation {
  enum class Kind { sqlite, postgresql };
  Kind kind = Kind::sqlite;
  std::filesystem::path path;  // sqlite
  std::string url;             // postgresql: "postgresql://user@host:5432/db"
  // "--store /x.sqlite", "DLCBENCH_STORE", "the default": where the choice
  // came from, for messages.
  std::string source;
};

// $XDG_DATA_HOME/dlcbench/store.sqlite, else ~/.local/share/dlcbench/store.sqlite.
std::filesystem::path default_store_path();

// The store a command uses: `option` (--store, "" when not given), else
// DLCBENCH_STORE, else the default; nullopt with --no-store or where either
// says "off". A postgresql:// or postgres:// URL is a server; anything else
// a SQLite file. Throws UsageError for an empty path or a URL without a
// host or database.
std::optional<StoreLocation> store_location(const std::string& option, bool no_store);

// The folder's file system is a network one (NFS, SMB/CIFS, Lustre, GPFS,
// CephFS, BeeGFS, 9p, a FUSE mount): its name ("nfs"), else "".
std::string network_file_system(const std::filesystem::path& folder);

}  // namespace dlcbench
