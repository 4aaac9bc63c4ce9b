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

// SQL of schema v1 (also used by tests to pin the table layout): gpu_samples has the
// columns of schema 1 (history_columns_of_schema(1)); later ones come with their migration.
std::string schema_v1_sql();
// SQL of migration 2: the rollup tables gpu_samples_1m and gpu_samples_1h (the columns of
// schema 2, i.e. of schema 1).
std::string schema_v2_sql();
// SQL of a migration that adds the history columns of schema VERSION (history_columns.def):
// ALTER TABLE ... ADD COLUMN on gpu_samples and <name>_min/_avg/_max on the rollup tables.
// Existing rows hold NULL there (absent). Migration 5 is schema_columns_sql(5).
std::string schema_columns_sql(int version);
// SQL of migration 15: gpus.vendor, each GPU's vendor ("nvidia", "amd", "intel"), 'nvidia' in old rows.
std::string schema_v15_sql();
// The rollup tables, finest first.
std::vector<std::string> rollup_tables();

// Brings the database to the latest version, then adds any column of history_columns()
// still missing from gpu_samples or the rollups (a safety net: a column normally comes
// with the migration its since_schema names). Returns the schema version. Error if the file is newer than this build.
core::Result<int> migrate(SQLite::Database& db);

// For a read-only connection, which cannot migrate: when the file lacks recorded columns (a
// file older than this build, e.g. schema 4 without the schema 5 columns), shadows gpu_samples
// and the rollup tables with TEMP views of the same names that add those columns as NULL, so
// the readers' SELECTs work and old rows read back absent. Per connection; the file is untouched.
// The views (and one over process_samples) also leave out rows whose time_ms is outside the
// sane range of store/untrusted_file.hpp. A gpus table without a vendor column (before schema 15)
// reads as NVIDIA's GPUs.
void show_missing_columns_as_null(SQLite::Database& db);

}  // namespace gpuwatch::store
