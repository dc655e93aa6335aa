// The results store's schema, one for SQLite and PostgreSQL: a version in
// store_meta and the migrations that bring a store from each version to the
// next. A store of a newer version than this binary's is refused, never
// changed.
#pragma once

#include <string>
#include <vector>

namespace dlcbench {

enum class SqlDialect { sqlite, postgresql };

// This binary's schema version: what open_store migrates a store to.
int store_schema_version();

// The statements that take a store from version i to i + 1 (the first from
// an empty database to 1), in the dialect's words.
std::vector<std::vector<std::string>> store_migrations(SqlDialect dialect);

// The refusal of a store whose schema is newer than this binary's.
std::string newer_schema_message(const std::string& store, int found);

}  // namespace dlcbench
