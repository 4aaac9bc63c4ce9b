#include "store/untrusted_file.hpp"

#include <sqlite3.h>

#include <fmt/core.h>
#include <optional>
#include <vector>

namespace gpuwatch::store {

void harden_reader_connection(sqlite3* handle) {
  sqlite3_db_config(handle, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_exec(handle, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON", nullptr, nullptr, nullptr);
  sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0);
}

namespace {

// The first row of SQL (with ?1 bound to BOUND): its text columns; nullopt when it has none.
// Throws nothing: an error comes back as the message in ERROR.
std::optional<std::vector<std::string>> first_row(sqlite3* handle, const char* sql, std::int64_t bound, std::string& error) {
  sqlite3_stmt* raw = nullptr;
  std::optional<std::vector<std::string>> row;
  if (sqlite3_prepare_v2(handle, sql, -1, &raw, nullptr) == SQLITE_OK) {
    if (sqlite3_bind_parameter_count(raw) > 0) sqlite3_bind_int64(raw, 1, bound);
    const int rc = sqlite3_step(raw);
    if (rc == SQLITE_ROW) {
      row.emplace();
      for (int i = 0; i < sqlite3_column_count(raw); ++i) {
        const auto* text = sqlite3_column_text(raw, i);
        row->push_back(text == nullptr ? std::string() : reinterpret_cast<const char*>(text));
      }
    } else if (rc != SQLITE_DONE) {
      error = sqlite3_errmsg(handle);
    }
  } else {
    error = sqlite3_errmsg(handle);
  }
  sqlite3_finalize(raw);
  return row;
}

}  // namespace

core::Result<void> refuse_crafted_schema(sqlite3* handle, const std::string& path) {
  std::string error;
  auto cannot_open = [&] { return core::make_error("cannot open history database " + path + ": " + error, 1); };
  // An allow-list, read from the statement text SQLite loads the schema from (not only the
  // `type` column, which a crafted file may spell 'View'): plain tables and indexes only.
  const auto crafted = first_row(handle,
                                 "SELECT lower(type), name, tbl_name FROM main.sqlite_master "
                                 "WHERE lower(type) NOT IN ('table', 'index') OR (sql IS NOT NULL AND NOT ("
                                 "sql LIKE 'CREATE TABLE %' OR sql LIKE 'CREATE INDEX %' OR "
                                 "sql LIKE 'CREATE UNIQUE INDEX %')) LIMIT 1",
                                 0, error);
  if (!error.empty()) return cannot_open();
  if (crafted && (*crafted)[0] != "view" && (*crafted)[0] != "trigger") {
    return core::make_error(fmt::format("{}: refusing this history file: `{}` is not a plain table or index "
                                        "(gpuwatch writes only those)",
                                        path, (*crafted)[1]),
                            1);
  }
  if (crafted && (*crafted)[0] == "view") {
    return core::make_error(fmt::format("{}: refusing this history file: `{}` is a view, and gpuwatch writes only tables "
                                        "(a view can make every read run without end)",
                                        path, (*crafted)[1]),
                            1);
  }
  if (crafted) {
    return core::make_error(fmt::format("{}: refusing this history file: it has a trigger `{}` on `{}`, and gpuwatch "
                                        "writes none",
                                        path, (*crafted)[1], (*crafted)[2]),
                            1);
  }
  const auto has_gpus =
      first_row(handle, "SELECT 1 FROM main.sqlite_master WHERE lower(type) = 'table' AND name = 'gpus' COLLATE NOCASE",
                0, error);
  if (!error.empty()) return cannot_open();
  if (!has_gpus) return {};
  const auto gpus = first_row(handle, "SELECT count(*) FROM (SELECT 1 FROM main.gpus LIMIT ?1)", kMaxGpus + 1, error);
  if (!error.empty()) return cannot_open();
  if (gpus && std::stoll((*gpus)[0]) > kMaxGpus) {
    return core::make_error(fmt::format("{}: refusing this history file: its `gpus` table has more than {} GPUs (the most "
                                        "gpuwatch reads from one file)",
                                        path, kMaxGpus),
                            1);
  }
  return {};
}

std::string sane_time_sql(const std::string& column) {
  return fmt::format(" AND {0} >= {1} AND {0} < {2}", column, kEarliestTimeMs, kLatestTimeMs);
}

std::string reader_time_sql(sqlite3* handle, const std::string& column) {
  return sqlite3_db_readonly(handle, "main") == 1 ? sane_time_sql(column) : std::string();
}

}  // namespace gpuwatch::store
