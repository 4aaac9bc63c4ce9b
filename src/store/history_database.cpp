#include "store/history_database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <filesystem>

#include "store/migrations.hpp"

namespace gpuwatch::store {

HistoryDatabase::HistoryDatabase(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}

HistoryDatabase::~HistoryDatabase() = default;

core::Result<std::unique_ptr<HistoryDatabase>> HistoryDatabase::open(const std::string& path,
                                                                     const OpenOptions& options) {
  if (options.read_only && !std::filesystem::exists(path)) {
    return core::make_error("no history database at " + path + " (record one with `gpuwatch record`)", 1);
  }
  try {
    int flags = options.read_only ? SQLite::OPEN_READONLY : (SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    if (options.single_thread) flags |= SQLITE_OPEN_NOMUTEX;
    auto db = std::make_unique<SQLite::Database>(path, flags, options.busy_timeout_ms);
    if (!options.read_only) {
      // WAL: readers never block the recorder, and a kill -9 mid-write leaves the last
      // committed batch intact. FULL syncs the WAL once per batch (one fsync per flush).
      db->exec("PRAGMA journal_mode=WAL");
      db->exec(options.durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
      auto migrated = migrate(*db);
      if (!migrated) return migrated.error();
    } else {
      int version = db->execAndGet("PRAGMA user_version").getInt();
      if (version == 0) return core::make_error(path + " holds no gpuwatch history (schema version 0)", 1);
      if (version > latest_schema_version()) {
        return core::make_error(path + " has schema version " + std::to_string(version) +
                                    ", newer than this gpuwatch knows (" + std::to_string(latest_schema_version()) +
                                    "): upgrade gpuwatch",
                                1);
      }
      // A reader cannot add the columns a newer gpuwatch records: they read as NULL (absent).
      show_missing_columns_as_null(*db);
    }
    return std::unique_ptr<HistoryDatabase>(new HistoryDatabase(path, std::move(db)));
  } catch (const SQLite::Exception& e) {
    return core::make_error("cannot open history database " + path + ": " + e.what(), 1);
  }
}

int HistoryDatabase::schema_version() const { return db_->execAndGet("PRAGMA user_version").getInt(); }

std::string HistoryDatabase::journal_mode() const { return db_->execAndGet("PRAGMA journal_mode").getString(); }

void HistoryDatabase::checkpoint() { db_->exec("PRAGMA wal_checkpoint(TRUNCATE)"); }

std::int64_t HistoryDatabase::size_bytes() const {
  return db_->execAndGet("PRAGMA page_count").getInt64() * db_->execAndGet("PRAGMA page_size").getInt64();
}

std::string HistoryDatabase::integrity_check() const {
  return db_->execAndGet("PRAGMA integrity_check").getString();
}

}  // namespace gpuwatch::store
