#include "store/store_schema.h"

#include <fmt/format.h>

namespace dlcbench {
namespace {

// `{key}` is the dialect's auto-numbered primary key, `{real}` its double.
std::string in_dialect(std::string sql, SqlDialect dialect) {
  const auto replace = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = sql.find(from); at != std::string::npos; at = sql.find(from, at + to.size()))
      sql.replace(at, from.size(), to);
  };
  replace("{key}", dialect == SqlDialect::sqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY");
  replace("{real}", "DOUBLE PRECISION");
  return sql;
}

}  // namespace

int store_schema_version() { return static_cast<int>(store_migrations(SqlDialect::sqlite).size()); }

std::vector<std::vector<std::string>> store_migrations(SqlDialect dialect) {
  const std::vector<std::vector<std::string>> steps = {
      // 1: runs, their records as written, and per comparison the headline
      // figure with the facts of its environment.
      {
          "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
          "CREATE TABLE runs (key {key}, run_id TEXT NOT NULL UNIQUE, machine TEXT NOT NULL, started_at TEXT NOT "
          "NULL, ended_at TEXT NOT NULL, status TEXT NOT NULL, folder TEXT NOT NULL, baseline TEXT NOT NULL, "
          "dlcbench_version TEXT NOT NULL, calibration INTEGER NOT NULL, manifest TEXT NOT NULL, added_at TEXT NOT "
          "NULL)",
          "CREATE TABLE records (run BIGINT NOT NULL REFERENCES runs(key) ON DELETE CASCADE, seq INTEGER NOT NULL, "
          "record TEXT NOT NULL, PRIMARY KEY (run, seq))",
          "CREATE TABLE comparisons (run BIGINT NOT NULL REFERENCES runs(key) ON DELETE CASCADE, case_id TEXT NOT "
          "NULL, env TEXT NOT NULL, baseline TEXT NOT NULL, verdict TEXT NOT NULL, compared INTEGER NOT NULL, "
          "mismatch_allowed INTEGER NOT NULL, form TEXT NOT NULL, basis TEXT NOT NULL, time_ratio {real}, time_low "
          "{real}, time_high {real}, rate INTEGER NOT NULL, unit TEXT NOT NULL, per TEXT NOT NULL, margin {real}, "
          "runs_compared INTEGER NOT NULL, facts TEXT NOT NULL, PRIMARY KEY (run, case_id, env))",
      },
      // 2: history reads a machine's runs in order, and a case's series.
      {
          "CREATE INDEX runs_by_machine ON runs (machine, ended_at)",
          "CREATE INDEX comparisons_by_case ON comparisons (case_id, env)",
      },
  };
  std::vector<std::vector<std::string>> out;
  for (const auto& step : steps) {
    std::vector<std::string> sql;
    for (const auto& s : step) sql.push_back(in_dialect(s, dialect));
    out.push_back(std::move(sql));
  }
  return out;
}

std::string newer_schema_message(const std::string& store, int found) {
  return fmt::format("the store {} has schema version {}, newer than this dlcbench's ({}): a newer dlcbench wrote "
                     "it; use that one, or give this one another store with --store PATH",
                     store, found, store_schema_version());
}

}  // namespace dlcbench
