#pragma once
// Numbered schema migrations. PRAGMA user_version holds the number of the last one
// applied; each runs in its own transaction with the version bump, so a crash leaves
// either the old or the new schema. Store-internal (takes the SQLite connection).
#include <string>
#include <vector>

#include "core/result.hpp"

namespace SQLite {
class Database;
}

namespace gpuwatch::store {

struct Migration {
  int version;              // 1, 2, ... in order
  std::string description;
  std::string sql;          // one or more statements
};

// Every migration, in order. The latest schema version is the last one's number.
const std::vector<Migration>& migrations();
int latest_schema_version();

// SQL of schema v1 (also used by tests to pin the table layout).
std::string schema_v1_sql();
// SQL of migration 2: the rollup tables gpu_samples_1m and gpu_samples_1h.
std::string schema_v2_sql();
// The rollup tables, finest first.
std::vector<std::string> rollup_tables();

// Brings the database to the latest version, then adds any gpu_samples column of
// history_columns() that is missing (a field added to the list after the database
// was made). Returns the schema version. Error if the file is newer than this build.
core::Result<int> migrate(SQLite::Database& db);

}  // namespace gpuwatch::store
