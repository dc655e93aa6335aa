// The results store (issue 40): every completed run, kept in a real
// database so that `history` and `gate` can read runs over time. SQLite at
// a path by default (store/sqlite_store.h), or a team's PostgreSQL server
// (store/postgres_store.h), with one schema (store/store_schema.h).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/store_location.h"
#include "store/stored_run.h"

namespace dlcbench {

// The store cannot be used as it is: locked, full, damaged, of a newer
// schema, unreachable. The message names the store, the cause and the fix;
// a run's own folder is written whatever the store says.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Which runs to read: all, or one machine's, newest last.
struct RunQuery {
  std::string machine;  // "" for every machine
};

class ResultsStore {
 public:
  virtual ~ResultsStore() = default;
  // Adds the run in one transaction. A run already in the store (the same
  // run id) is replaced by this reading of its folder: `store add` again
  // after a --resume updates it. Returns true if it was new.
  virtual bool add(const RunToStore& run) = 0;
  // The stored runs with their comparisons, oldest first (by their end).
  virtual std::vector<StoredRun> runs(const RunQuery& query = {}) = 0;
  virtual int schema_version() = 0;
  // "SQLite /root/.local/share/dlcbench/store.sqlite (WAL)".
  virtual std::string description() const = 0;
};

// Opens (and creates, or migrates to this version's schema) the store.
// Throws StoreError.
std::unique_ptr<ResultsStore> open_store(const StoreLocation& location);

}  // namespace dlcbench
