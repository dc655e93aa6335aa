// The results store in a SQLite file: WAL on a local disk, so that readers
// never wait for a writer and two runs ending at once both land. On a
// network file system WAL's shared memory does not work: there a rollback
// journal with dot-file locks, said in the description.
#pragma once

#include <filesystem>
#include <memory>

#include "store/sql_connection.h"

namespace dlcbench {

// Opens (creating the file and its folder) the store at `path`. A file that
// is not a SQLite database, or shorter than its header says (truncated), is
// refused with the fix. Throws StoreError.
std::unique_ptr<SqlConnection> open_sqlite(const std::filesystem::path& path);

}  // namespace dlcbench
