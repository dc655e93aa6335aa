#include "store/sqlite_connection.h"

#include <sqlite3.h>

#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "store/results_store.h"
#include "store/store_location.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;

// How long a writer waits for another's transaction before saying the
// store is locked: a run's records take well under a second to add.
constexpr int kBusyTimeoutMs = 30000;

std::string fix_for(int code, const std::string& store, const std::string& what) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("the store {} is locked: another process has held it for more than {} s (another "
                         "dlcbench adding a run, or a program that keeps it open); try again, or use another store "
                         "with --store PATH ({})",
                         store, kBusyTimeoutMs / 1000, what);
    case SQLITE_FULL:
      return fmt::format("the disk that holds the store {} is full ({}): free space, or move the store and give "
                         "its new path with --store PATH",
                         store, what);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return fmt::format("the store {} is damaged or is not a dlcbench store ({}): move it aside (mv {} {}.damaged); "
                         "the next run makes a new one, and `dlcbench store add DIR...` brings run folders back into it",
                         store, what, store, store);
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return fmt::format("cannot write the store {} ({}): give this user write access to it and its folder, or "
                         "use another with --store PATH",
                         store, what);
    case SQLITE_IOERR:
      return fmt::format("the store {} could not be read or written ({}): check the disk, or use another store "
                         "with --store PATH",
                         store, what);
    default: return fmt::format("the store {}: {}", store, what);
  }
}

std::uint32_t big_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// A file that holds something: the SQLite header's magic, and at least the
// pages its header counts (SQLite reads missing pages of a truncated file
// as a damaged b-tree only when it reaches them).
void check_header(const fs::path& path) {
  // With a write-ahead log beside it, another process has the store open:
  // its checkpoint may have written page 1's new size before the pages, so
  // the file may be shorter than its header for a moment, and a damaged
  // page is SQLite's to find.
  const auto wal_in_use = [&] {
    std::error_code wal_ec;
    return fs::exists(path.string() + "-wal", wal_ec);
  };
  if (wal_in_use()) return;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size == 0) return;  // new, or empty: SQLite makes it a database
  std::array<unsigned char, 100> h{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  const std::string magic(reinterpret_cast<const char*>(h.data()), 16);
  if (in.gcount() < 100 || magic != std::string("SQLite format 3\0", 16))
    throw StoreError(fix_for(SQLITE_NOTADB, path.string(), "it does not start with SQLite's header"));
  std::uint32_t page = big_endian(&h[16], 2);
  if (page == 1) page = 65536;
  const std::uint32_t pages = big_endian(&h[28], 4);
  // The page count is valid where the change counter and the version that
  // wrote it agree (SQLite's own rule).
  const bool count_valid = big_endian(&h[24], 4) == big_endian(&h[92], 4) && pages > 0;
  if (count_valid && static_cast<std::uintmax_t>(page) * pages > size && !wal_in_use())
    throw StoreError(fix_for(SQLITE_CORRUPT, path.string(),
                             fmt::format("the file has {} bytes where its header counts {} pages of {} bytes: it was "
                                         "truncated",
                                         size, pages, page)));
}

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(const fs::path& path) : path_(path.string()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      throw StoreError(fix_for(SQLITE_CANTOPEN, path_, fmt::format("cannot make its folder: {}", ec.message())));
    check_header(path);
    network_fs_ = network_file_system(path.parent_path());
    // On a network file system POSIX locks may not reach the server: lock
    // with a dot file beside the store instead.
    const char* vfs = network_fs_.empty() ? nullptr : "unix-dotfile";
    const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, vfs);
    if (rc != SQLITE_OK) {
      const std::string what = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw StoreError(fix_for(rc, path_, what));
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    try {
      query("PRAGMA foreign_keys = ON", {});
      // WAL needs shared memory between the processes: a local disk only.
      // Changing the journal takes the file for a moment, without the busy
      // handler: a store another process is opening too answers "busy".
      const std::string journal = network_fs_.empty() ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode = DELETE";
      const auto mode = while_busy([&] { return query(journal, {}); });
      journal_ = mode.empty() ? "" : text_of(mode[0][0]);
      query("PRAGMA synchronous = NORMAL", {});
    } catch (...) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw;
    }
  }
  ~SqliteConnection() override { sqlite3_close(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  SqlDialect dialect() const override { return SqlDialect::sqlite; }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, nullptr);
    if (rc != SQLITE_OK) fail(rc);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{st};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::int64_t>(v)) rc = sqlite3_bind_int64(st, at, std::get<std::int64_t>(v));
      else if (std::holds_alternative<double>(v) && std::isfinite(std::get<double>(v)))
        rc = sqlite3_bind_double(st, at, std::get<double>(v));
      else if (std::holds_alternative<std::string>(v)) {
        const auto& s = std::get<std::string>(v);
        rc = sqlite3_bind_text(st, at, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      } else {
        rc = sqlite3_bind_null(st, at);  // NULL, and a NaN or infinite double
      }
      if (rc != SQLITE_OK) fail(rc);
    }
    std::vector<SqlRow> rows;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(st, c))); break;
          case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(st, c)); break;
          case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
          default: {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
            row.emplace_back(std::string(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(st, c))));
          }
        }
      }
      rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) fail(rc);
    return rows;
  }

  void begin_write() override {
    while_busy([&] { return query("BEGIN IMMEDIATE", {}); });
  }
  void commit() override { query("COMMIT", {}); }
  void rollback() noexcept override {
    if (db_ && !sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  // Runs `f` again while the store answers "busy" (the busy handler covers
  // most waits, not a journal change or a lock another opening holds),
  // until the same time a writer waits for another's transaction.
  template <class F>
  auto while_busy(F f) -> decltype(f()) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
      try {
        return f();
      } catch (const StoreError&) {
        const int code = last_error_ & 0xff;
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }

  std::string description() const override {
    if (!network_fs_.empty())
      return fmt::format("SQLite {} (on {}, a network file system: a rollback journal and dot-file locks, since WAL "
                         "needs shared memory; only the process that submits runs should write it)",
                         path_, network_fs_);
    return fmt::format("SQLite {} ({})", path_, journal_ == "wal" ? "WAL" : journal_);
  }

 private:
  [[noreturn]] void fail(int rc) {
    last_error_ = rc;
    throw StoreError(fix_for(rc, path_, sqlite3_errmsg(db_)));
  }

  std::string path_;
  int last_error_ = SQLITE_OK;
  std::string network_fs_;
  std::string journal_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const fs::path& path) { return std::make_unique<SqliteConnection>(path); }

}  // namespace dlcbench
