// The results store on a team's PostgreSQL server (`--store
// postgresql://...`), through libpq, with the same schema and queries as
// the SQLite file.
#pragma once

#include <memory>
#include <string>

#include "store/sql_connection.h"

namespace dlcbench {

// Connects to `url` (libpq's connection URI). Throws StoreError naming the
// server without its password, the cause and the fix.
std::unique_ptr<SqlConnection> open_postgres(const std::string& url);

// The URL as messages show it: any password replaced by "***".
std::string redacted_url(const std::string& url);

}  // namespace dlcbench
