#include "store/xid_log.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/sql_values.hpp"

namespace gpuwatch::store {
namespace {

bool has_xid_table(const HistoryDatabase& db) {
  return db.sql().execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'xid_events'").getInt() > 0;
}

}  // namespace

std::string schema_v9_sql() {
  return "CREATE TABLE xid_events (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  time_ms INTEGER NOT NULL,\n"   // when the recorder received it (Unix ms)
         "  gpu INTEGER NOT NULL,\n"       // NVML index
         "  uuid TEXT,\n"
         "  xid INTEGER NOT NULL\n"
         ");\n"
         "CREATE INDEX xid_events_time ON xid_events(time_ms);\n";
}

core::Result<void> write_xid_events(HistoryDatabase& db, const std::vector<XidEventRow>& events) {
  if (events.empty()) return {};
  try {
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement insert(db.sql(), "INSERT INTO xid_events (time_ms, gpu, uuid, xid) VALUES (:t, :gpu, :uuid, :xid)");
    for (const auto& e : events) {
      insert.bind(":t", static_cast<std::int64_t>(e.time_ms));
      insert.bind(":gpu", static_cast<std::int64_t>(e.gpu));
      bind_optional(insert, ":uuid", e.uuid);
      insert.bind(":xid", static_cast<std::int64_t>(e.xid));
      insert.exec();
      insert.reset();
    }
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot write Xid events: ") + e.what(), 1);
  }
}

core::Result<std::vector<XidEventRow>> read_xid_events(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                       std::optional<std::int64_t> until_ms) {
  std::vector<XidEventRow> out;
  try {
    if (!has_xid_table(db)) return out;
    std::string sql = "SELECT time_ms, gpu, uuid, xid FROM xid_events WHERE 1";
    if (since_ms) sql += " AND time_ms >= :since";
    if (until_ms) sql += " AND time_ms <= :until";
    SQLite::Statement select(db.sql(), sql + " ORDER BY time_ms, id");
    if (since_ms) select.bind(":since", static_cast<std::int64_t>(*since_ms));
    if (until_ms) select.bind(":until", static_cast<std::int64_t>(*until_ms));
    while (select.executeStep()) {
      XidEventRow row;
      row.time_ms = select.getColumn(0).getInt64();
      row.gpu = static_cast<unsigned>(select.getColumn(1).getInt64());
      if (!select.getColumn(2).isNull()) row.uuid = select.getColumn(2).getString();
      row.xid = static_cast<std::uint64_t>(select.getColumn(3).getInt64());
      out.push_back(std::move(row));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read Xid events: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
