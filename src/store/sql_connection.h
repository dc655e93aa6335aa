// One connection to the store's database, as the store's queries need it:
// statements with `?` parameters, rows of plain values, a transaction that
// takes the write lock at its start. SQLite and PostgreSQL each implement it
// (store/sqlite_connection.h, store/postgres_connection.h); the queries are
// written once (store/results_store.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "store/store_schema.h"

namespace dlcbench {

// NULL, an integer, a double or a text.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;
  // Runs one statement with its parameters and returns its rows (none for
  // most). Throws StoreError naming the store and the fix.
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  // A transaction that holds the write lock from its start, so two writers
  // queue instead of failing halfway.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // "SQLite /path/store.sqlite (WAL)", "PostgreSQL db.example.org:5432/dlcbench".
  virtual std::string description() const = 0;
};

// A column's value as text, integer or double (NaN for NULL).
std::string text_of(const SqlValue& v);
std::int64_t integer_of(const SqlValue& v);
double real_of(const SqlValue& v);

}  // namespace dlcbench
