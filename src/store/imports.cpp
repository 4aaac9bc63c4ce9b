#include "store/imports.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

namespace gpuwatch::store {
namespace {

bool has_imports_table(const HistoryDatabase& db, const char* table) {
  SQLite::Statement count(db.sql(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
  count.bind(1, table);
  count.executeStep();
  return count.getColumn(0).getInt() > 0;
}

}  // namespace

std::string schema_v12_sql() {
  // IF NOT EXISTS: a file whose user_version was set back (as tests make "older" files) keeps them.
  return "CREATE TABLE IF NOT EXISTS imports (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  file TEXT NOT NULL UNIQUE,\n"     // the log's file name
         "  format TEXT NOT NULL,\n"
         "  first_ms INTEGER NOT NULL,\n"
         "  last_ms INTEGER NOT NULL,\n"
         "  gpus INTEGER NOT NULL,\n"
         "  rows INTEGER NOT NULL,\n"
         "  imported_ms INTEGER NOT NULL\n"
         ");\n"
         "CREATE TABLE IF NOT EXISTS gpu_lost_events (\n"
         "  time_ms INTEGER NOT NULL,\n"
         "  gpu_id INTEGER NOT NULL REFERENCES gpus(id),\n"
         "  PRIMARY KEY (time_ms, gpu_id)\n"
         ") WITHOUT ROWID;\n";
}

core::Result<void> write_import_record(HistoryDatabase& db, const ImportRecord& r) {
  try {
    SQLite::Statement upsert(
        db.sql(),
        "INSERT INTO imports (file, format, first_ms, last_ms, gpus, rows, imported_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
        "ON CONFLICT(file) DO UPDATE SET format = excluded.format, first_ms = min(first_ms, excluded.first_ms), "
        "last_ms = max(last_ms, excluded.last_ms), gpus = max(gpus, excluded.gpus), rows = max(rows, excluded.rows), "
        "imported_ms = excluded.imported_ms");
    upsert.bind(1, r.file);
    upsert.bind(2, r.format);
    upsert.bind(3, static_cast<std::int64_t>(r.first_ms));
    upsert.bind(4, static_cast<std::int64_t>(r.last_ms));
    upsert.bind(5, static_cast<std::int64_t>(r.gpus));
    upsert.bind(6, static_cast<std::int64_t>(r.rows));
    upsert.bind(7, static_cast<std::int64_t>(r.imported_ms));
    upsert.exec();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot record the import of ") + r.file + ": " + e.what(), 1);
  }
}

core::Result<void> write_lost_gpu(HistoryDatabase& db, const std::string& gpu_key, std::int64_t time_ms) {
  try {
    SQLite::Statement insert(db.sql(),
                             "INSERT OR IGNORE INTO gpu_lost_events (time_ms, gpu_id) SELECT ?1, id FROM gpus WHERE gpu_key = ?2");
    insert.bind(1, static_cast<std::int64_t>(time_ms));
    insert.bind(2, gpu_key);
    insert.exec();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot record a lost GPU: ") + e.what(), 1);
  }
}

core::Result<std::vector<ImportRecord>> read_import_records(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                            std::optional<std::int64_t> until_ms) {
  std::vector<ImportRecord> out;
  try {
    if (!has_imports_table(db, "imports")) return out;
    std::string sql = "SELECT file, format, first_ms, last_ms, gpus, rows, imported_ms FROM imports WHERE 1";
    if (since_ms) sql += " AND last_ms >= :since";
    if (until_ms) sql += " AND first_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY first_ms, id");
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    while (select.executeStep()) {
      ImportRecord r;
      r.file = select.getColumn(0).getString();
      r.format = select.getColumn(1).getString();
      r.first_ms = select.getColumn(2).getInt64();
      r.last_ms = select.getColumn(3).getInt64();
      r.gpus = select.getColumn(4).getInt64();
      r.rows = select.getColumn(5).getInt64();
      r.imported_ms = select.getColumn(6).getInt64();
      out.push_back(std::move(r));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the imports: ") + e.what(), 1);
  }
}

core::Result<std::vector<LostGpuRow>> read_lost_gpus(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                     std::optional<std::int64_t> until_ms) {
  std::vector<LostGpuRow> out;
  try {
    if (!has_imports_table(db, "gpu_lost_events")) return out;
    std::string sql =
        "SELECT e.time_ms, g.gpu_index, g.gpu_key FROM gpu_lost_events e JOIN gpus g ON g.id = e.gpu_id WHERE 1";
    if (since_ms) sql += " AND e.time_ms >= :since";
    if (until_ms) sql += " AND e.time_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY e.time_ms, e.gpu_id");
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    while (select.executeStep()) {
      LostGpuRow row;
      row.time_ms = select.getColumn(0).getInt64();
      row.gpu = select.getColumn(1).isNull() ? 0u : static_cast<unsigned>(select.getColumn(1).getInt64());
      row.gpu_key = select.getColumn(2).getString();
      out.push_back(std::move(row));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the lost GPUs: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
