#include "store/history_database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/core.h>

#include "store/database_file.hpp"
#include "store/migrations.hpp"
#include "store/read_deadline.hpp"
#include "store/untrusted_file.hpp"

namespace gpuwatch::store {

HistoryDatabase::HistoryDatabase(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}

HistoryDatabase::~HistoryDatabase() = default;

OpenOptions cli_reader_options() {
  OpenOptions options;
  options.read_only = true;
  options.cli_limits = true;
  return options;
}

namespace {

std::int64_t file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

// The read deadline of a CLI reader of PATH (OpenOptions::cli_limits); 0: none.
std::chrono::milliseconds cli_read_deadline(const std::string& path) {
  if (const char* set = std::getenv("GPUWATCH_READ_TIMEOUT"); set != nullptr && *set != '\0') {
    char* end = nullptr;
    const double seconds = std::strtod(set, &end);
    if (end != set && *end == '\0' && seconds >= 0 && seconds < 1e6) {
      if (seconds == 0) return std::chrono::milliseconds(0);
      return std::chrono::milliseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(seconds * 1000)));
    }
  }
  const std::int64_t bytes = file_bytes(path) + file_bytes(path + "-wal");
  // A legitimate day of 8 GPUs (135 MB) takes about 20 s to print whole: 1 s per MiB leaves room.
  return std::chrono::seconds(5 + bytes / (std::int64_t{1} << 20));
}

// A writer's check of an existing file before anything is written to it (issue 16): a SQLite
// database that has tables but no gpuwatch schema belongs to another program.
core::Result<void> refuse_foreign_database(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || st.st_size == 0) return {};  // new or empty: ours to create
  if (!has_sqlite_header(path)) {
    return core::make_error(path + " is not a SQLite database (nor a gpuwatch history): not touching it", 1);
  }
  const auto created = absent_side_files(path);
  core::Result<void> verdict;
  try {
    SQLite::Database probe(path, SQLite::OPEN_READONLY);
    const int version = probe.execAndGet("PRAGMA user_version").getInt();
    const int tables = probe.execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table'").getInt();
    const int ours = probe.execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'gpu_samples'").getInt();
    if (tables > 0 && (version == 0 || ours == 0)) {
      verdict = core::make_error(path + " is another program's SQLite database (it has " + std::to_string(tables) +
                                     " table(s) but no gpuwatch history schema): not touching it; give another --db",
                                 1);
    }
  } catch (const SQLite::Exception& e) {
    verdict = core::make_error("cannot open history database " + path + ": " + e.what(), 1);
  }
  if (!verdict) remove_side_files(created);  // the probe leaves nothing behind
  return verdict;
}

}  // namespace

core::Result<std::unique_ptr<HistoryDatabase>> HistoryDatabase::open(const std::string& path,
                                                                     const OpenOptions& options) {
  if (options.read_only && !std::filesystem::exists(path)) {
    return core::make_error("no history database at " + path + " (record one with `gpuwatch record`)", 1);
  }
  // Before SQLite touches the path: a directory, /dev/null or a FIFO is refused by name.
  if (auto usable = check_database_path(path, !options.read_only); !usable) return usable.error();
  if (!options.read_only) {
    if (auto ours = refuse_foreign_database(path); !ours) return ours.error();
  }
  const auto side_files = absent_side_files(path);
  auto opened = open_checked(path, options);
  if (!opened && !options.read_only) remove_side_files(side_files);  // a refused open leaves no -wal/-shm
  return opened;
}

core::Result<std::unique_ptr<HistoryDatabase>> HistoryDatabase::open_checked(const std::string& path,
                                                                             const OpenOptions& options) {
  try {
    int flags = options.read_only ? SQLite::OPEN_READONLY : (SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    if (options.single_thread) flags |= SQLITE_OPEN_NOMUTEX;
    // Read-only media (a mounted backup, a read-only bind mount): SQLite cannot take its locks
    // nor create the -shm file there; immutable=1 reads the file as it is (issue 16).
    const bool immutable = options.read_only && on_read_only_media(path);
    if (immutable) flags |= SQLITE_OPEN_URI;
    auto db = std::make_unique<SQLite::Database>(immutable ? immutable_uri(path) : path, flags, options.busy_timeout_ms);
    std::unique_ptr<ReadDeadline> deadline;
    if (options.read_only) {
      // Before anything reads the file (issue 31): the file may have been crafted.
      harden_reader_connection(db->getHandle());
      if (options.cli_limits) {
        sqlite3_hard_heap_limit64(kCliHeapLimitBytes);
        const auto budget = cli_read_deadline(path);
        deadline = std::make_unique<ReadDeadline>(
            db->getHandle(), budget, nullptr,
            fmt::format("gpuwatch: reading {} took over {:.3g} s of CPU time: stopped (a history file that slow to "
                        "read is refused; GPUWATCH_READ_TIMEOUT=SECONDS allows longer)",
                        path, static_cast<double>(budget.count()) / 1000.0),
            ReadDeadline::Clock::ThreadCpu);
      }
      if (auto shaped = refuse_crafted_schema(db->getHandle(), path); !shaped) return shaped.error();
    }
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
    std::unique_ptr<HistoryDatabase> opened(new HistoryDatabase(path, std::move(db)));
    opened->deadline_ = std::move(deadline);
    return opened;
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
