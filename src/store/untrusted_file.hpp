#pragma once
// A history file is input: anyone may hand one to `history`, `report` or `diagnose` (issue 31).
// Every read-only connection is opened with SQLite's settings for untrusted database files
// (https://sqlite.org/security.html), and a file shaped to hang or bloat a reader is refused
// by name before anything reads it:
//  - SQLITE_DBCONFIG_DEFENSIVE, PRAGMA trusted_schema=OFF, PRAGMA cell_size_check=ON, and
//    sqlite3_limit caps (a value at most 16 MiB, no ATTACHed files);
//  - a view or a trigger in the file (gpuwatch writes only tables and indexes) is refused: a
//    view in place of gpu_samples could run any query, e.g. an endless recursive one;
//  - more than kMaxGpus rows in `gpus` is refused (a real host has a handful);
//  - reads skip rows whose time is outside [kEarliestTimeMs, kLatestTimeMs) (1970 to 2199):
//    such a time was not recorded by a clock, and would print as the year 292278937.
// The CLI readers add a deadline and a memory bound (OpenOptions::cli_limits).
#include <cstdint>
#include <string>

#include "core/result.hpp"

struct sqlite3;

namespace gpuwatch::store {

inline constexpr std::int64_t kMaxGpus = 1024;
inline constexpr std::int64_t kEarliestTimeMs = 0;               // 1970-01-01T00:00:00Z (before: negative)
inline constexpr std::int64_t kLatestTimeMs = 7258118400000;    // 2200-01-01T00:00:00Z
inline constexpr int kMaxValueBytes = 16 << 20;                 // SQLITE_LIMIT_LENGTH of a reader

// The defensive settings above, on a freshly opened read-only connection.
void harden_reader_connection(sqlite3* handle);

// An error naming PATH and the object when the file holds a view or a trigger, or more than
// kMaxGpus GPUs; nothing when it is shaped as gpuwatch writes it.
core::Result<void> refuse_crafted_schema(sqlite3* handle, const std::string& path);

// " AND COLUMN >= kEarliestTimeMs AND COLUMN < kLatestTimeMs".
std::string sane_time_sql(const std::string& column);
// sane_time_sql(COLUMN) on a read-only connection (a reader of a file it did not write); "" on
// the writer's own connection, which reads back what it wrote.
std::string reader_time_sql(sqlite3* handle, const std::string& column);

}  // namespace gpuwatch::store
