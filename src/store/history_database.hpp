#pragma once
// An open history database: the SQLite connection with WAL mode and the schema
// migrated to the latest version (PRAGMA user_version; store/migrations.hpp).
// Readers (history, report, serve) open it read-only and work while a recorder writes.
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.hpp"

namespace SQLite {
class Database;
}

namespace gpuwatch::store {

class ReadDeadline;

struct OpenOptions {
  bool read_only = false;  // readers: never create or migrate
  bool durable = true;     // synchronous=FULL (a power cut loses at most the batch being written)
  int busy_timeout_ms = 5000;
  // SQLITE_OPEN_NOMUTEX: the caller never uses the connection from two threads at once, so
  // SQLite skips its per-call lock (long scans read columns several times faster).
  bool single_thread = false;
  // A command reading a file anyone may have handed it (history, report, diagnose; issue 31):
  // with read_only, every read of the connection stops after a deadline (5 s, plus 1 s per
  // MiB of the file and its -wal; GPUWATCH_READ_TIMEOUT=SECONDS sets it, 0 none) and SQLite's
  // heap is capped at kCliHeapLimitBytes for the process. Every read-only connection gets the
  // defensive settings and schema checks of store/untrusted_file.hpp in any case.
  bool cli_limits = false;
};

inline constexpr std::int64_t kCliHeapLimitBytes = std::int64_t{64} << 20;

// OpenOptions of a CLI command reading history: read_only and cli_limits.
OpenOptions cli_reader_options();

class HistoryDatabase {
 public:
  // Writers: creates the file (not its folder: see prepare_database_directory) and
  // migrates. Readers: the file must exist and carry a schema this build knows.
  static core::Result<std::unique_ptr<HistoryDatabase>> open(const std::string& path, const OpenOptions& options = {});
  ~HistoryDatabase();
  HistoryDatabase(const HistoryDatabase&) = delete;
  HistoryDatabase& operator=(const HistoryDatabase&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const;
  std::string journal_mode() const;
  // Copies the WAL into the main file and truncates it (PRAGMA wal_checkpoint(TRUNCATE)).
  void checkpoint();
  // Bytes in the main file (page_count * page_size): after checkpoint(), the disk use.
  std::int64_t size_bytes() const;
  // "ok" when PRAGMA integrity_check finds nothing wrong.
  std::string integrity_check() const;

  // For store/ internals. SQLiteCpp's reads are non-const, hence the const accessor.
  SQLite::Database& sql() const { return *db_; }

 private:
  HistoryDatabase(std::string path, std::unique_ptr<SQLite::Database> db);
  // open() once the path passed its checks (store/database_file.hpp).
  static core::Result<std::unique_ptr<HistoryDatabase>> open_checked(const std::string& path, const OpenOptions& options);
  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
  std::unique_ptr<ReadDeadline> deadline_;  // cli_limits; after db_: removed before the connection closes
};

}  // namespace gpuwatch::store
