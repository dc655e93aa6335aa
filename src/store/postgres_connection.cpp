#include "store/postgres_connection.h"

#include <libpq-fe.h>

#include <cmath>

#include <fmt/format.h>

#include "store/results_store.h"

namespace dlcbench {

std::string redacted_url(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto at = url.find('@', scheme + 3);
  const auto slash = url.find('/', scheme + 3);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

namespace {

// The five-character SQLSTATE classes the store names a fix for.
std::string fix_for(const std::string& state, const std::string& store, const std::string& what) {
  if (state == "55P03" || state == "40P01" || state == "57014")
    return fmt::format("the store {} is locked ({}): another dlcbench is adding a run; try again", store, what);
  if (state.rfind("53", 0) == 0)
    return fmt::format("the server of the store {} is out of resources ({}): free disk or connections there, or "
                       "use another store with --store",
                       store, what);
  if (state.rfind("42501", 0) == 0 || state.rfind("28", 0) == 0)
    return fmt::format("the store {} refused this user ({}): grant it CREATE and INSERT on the database, or give "
                       "another user in the URL",
                       store, what);
  return fmt::format("the store {}: {}", store, what);
}

std::string trimmed(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(const std::string& url) : shown_(redacted_url(url)) {
    conn_ = PQconnectdb(url.c_str());
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string what = trimmed(conn_ ? PQerrorMessage(conn_) : "out of memory");
      PQfinish(conn_);
      conn_ = nullptr;
      throw StoreError(fmt::format("cannot reach the store {} ({}): start the server, check the URL "
                                   "(postgresql://USER@HOST:PORT/DATABASE), or use a SQLite store with --store PATH",
                                   shown_, what));
    }
    // Quiet: "relation already exists, skipping" notices are not news.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    query("SET client_min_messages = warning", {});
  }
  ~PostgresConnection() override { PQfinish(conn_); }
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  SqlDialect dialect() const override { return SqlDialect::postgresql; }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (const auto* s = std::get_if<std::string>(&v)) texts[i] = *s;
      else if (const auto* n = std::get_if<std::int64_t>(&v)) texts[i] = std::to_string(*n);
      else if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d)) texts[i] = fmt::format("{:.17g}", *d);
      else continue;  // NULL, and a NaN or infinite double
      values[i] = texts[i].c_str();
    }
    PGresult* r = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(), nullptr,
                               nullptr, 0);
    struct Clear {
      PGresult* r;
      ~Clear() { PQclear(r); }
    } clear{r};
    const auto status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      throw StoreError(fix_for(state ? state : "", shown_, trimmed(PQerrorMessage(conn_))));
    }
    std::vector<SqlRow> rows;
    for (int i = 0; i < PQntuples(r); ++i) {
      SqlRow row;
      for (int c = 0; c < PQnfields(r); ++c) {
        if (PQgetisnull(r, i, c)) row.emplace_back(std::monostate{});
        else row.emplace_back(std::string(PQgetvalue(r, i, c), static_cast<std::size_t>(PQgetlength(r, i, c))));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // SERIALIZABLE is not needed: every writer takes the one lock below, so
  // two runs ending at once queue behind each other.
  void begin_write() override {
    query("BEGIN", {});
    query("SELECT pg_advisory_xact_lock(4016750320)", {});  // "dlcbench store", any constant
  }
  void commit() override { query("COMMIT", {}); }
  void rollback() noexcept override {
    if (conn_ && PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  }

  std::string description() const override { return fmt::format("PostgreSQL {}", shown_); }

 private:
  std::string shown_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> open_postgres(const std::string& url) { return std::make_unique<PostgresConnection>(url); }

}  // namespace dlcbench
