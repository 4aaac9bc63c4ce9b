#include "store/alert_log.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/sql_values.hpp"

namespace gpuwatch::store {
namespace {

bool has_alert_tables(const HistoryDatabase& db) {
  return db.sql().execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'alert_events'").getInt() > 0;
}

AlertRow read_alert(SQLite::Statement& select) {
  AlertRow row;
  row.fingerprint = select.getColumn(0).getString();
  row.rule = select.getColumn(1).getString();
  row.severity = select.getColumn(2).getString();
  row.state = select.getColumn(3).getString();
  if (!select.getColumn(4).isNull()) row.gpu = static_cast<unsigned>(select.getColumn(4).getInt64());
  if (!select.getColumn(5).isNull()) row.value = select.getColumn(5).getDouble();
  row.active_since_ms = select.getColumn(6).getInt64();
  row.fired_ms = optional_int64(select.getColumn(7));
  row.resolved_ms = optional_int64(select.getColumn(8));
  row.updated_ms = select.getColumn(9).getInt64();
  row.alert_json = select.getColumn(10).getString();
  return row;
}

constexpr const char* kAlertColumns =
    "fingerprint, rule, severity, state, gpu, value, active_since_ms, fired_ms, resolved_ms, updated_ms, alert";

}  // namespace

core::Result<void> write_alerts(HistoryDatabase& db, const std::vector<AlertRow>& alerts,
                                const std::vector<AlertEventRow>& events, const std::vector<std::string>& forget) {
  try {
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement upsert(db.sql(), std::string("INSERT OR REPLACE INTO alerts (") + kAlertColumns +
                                           ") VALUES (:fp, :rule, :sev, :state, :gpu, :value, :since, :fired, :resolved, "
                                           ":updated, :alert)");
    for (const auto& a : alerts) {
      upsert.bind(":fp", a.fingerprint);
      upsert.bind(":rule", a.rule);
      upsert.bind(":sev", a.severity);
      upsert.bind(":state", a.state);
      bind_optional(upsert, ":gpu", a.gpu ? std::optional<std::int64_t>(*a.gpu) : std::nullopt);
      bind_optional(upsert, ":value", a.value);
      upsert.bind(":since", static_cast<std::int64_t>(a.active_since_ms));
      bind_optional(upsert, ":fired", a.fired_ms);
      bind_optional(upsert, ":resolved", a.resolved_ms);
      upsert.bind(":updated", static_cast<std::int64_t>(a.updated_ms));
      upsert.bind(":alert", a.alert_json);
      upsert.exec();
      upsert.reset();
    }
    SQLite::Statement insert(db.sql(),
                             "INSERT INTO alert_events (time_ms, fingerprint, kind, rule, severity, gpu, value, alert) "
                             "VALUES (:t, :fp, :kind, :rule, :sev, :gpu, :value, :alert)");
    for (const auto& e : events) {
      insert.bind(":t", static_cast<std::int64_t>(e.time_ms));
      insert.bind(":fp", e.fingerprint);
      insert.bind(":kind", e.kind);
      insert.bind(":rule", e.rule);
      insert.bind(":sev", e.severity);
      bind_optional(insert, ":gpu", e.gpu ? std::optional<std::int64_t>(*e.gpu) : std::nullopt);
      bind_optional(insert, ":value", e.value);
      insert.bind(":alert", e.alert_json);
      insert.exec();
      insert.reset();
    }
    SQLite::Statement remove(db.sql(), "DELETE FROM alerts WHERE fingerprint = :fp AND state = 'pending'");
    for (const auto& fp : forget) {
      remove.bind(":fp", fp);
      remove.exec();
      remove.reset();
    }
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot write the alerts to the history database: ") + e.what(), 1);
  }
}

core::Result<std::vector<AlertRow>> read_open_alerts(const HistoryDatabase& db) {
  try {
    std::vector<AlertRow> out;
    if (!has_alert_tables(db)) return out;
    SQLite::Statement select(db.sql(), std::string("SELECT ") + kAlertColumns +
                                           " FROM alerts WHERE state IN ('pending', 'firing') ORDER BY active_since_ms, fingerprint");
    while (select.executeStep()) out.push_back(read_alert(select));
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the alerts from the history database: ") + e.what(), 1);
  }
}

core::Result<std::vector<AlertRow>> read_alerts_since(const HistoryDatabase& db, std::int64_t since_ms, std::size_t limit) {
  try {
    std::vector<AlertRow> out;
    if (!has_alert_tables(db)) return out;
    SQLite::Statement select(db.sql(), std::string("SELECT ") + kAlertColumns +
                                           " FROM alerts WHERE updated_ms >= :since ORDER BY updated_ms DESC, fingerprint LIMIT :limit");
    select.bind(":since", static_cast<std::int64_t>(since_ms));
    select.bind(":limit", static_cast<std::int64_t>(limit));
    while (select.executeStep()) out.push_back(read_alert(select));
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the alerts from the history database: ") + e.what(), 1);
  }
}

core::Result<std::vector<AlertEventRow>> read_alert_events_since(const HistoryDatabase& db, std::int64_t since_ms,
                                                                 std::size_t limit) {
  try {
    std::vector<AlertEventRow> out;
    if (!has_alert_tables(db)) return out;
    SQLite::Statement select(db.sql(),
                             "SELECT time_ms, fingerprint, kind, rule, severity, gpu, value, alert FROM ("
                             "SELECT *, id AS event_id FROM alert_events WHERE time_ms >= :since "
                             "ORDER BY time_ms DESC, id DESC LIMIT :limit) ORDER BY time_ms, event_id");
    select.bind(":since", static_cast<std::int64_t>(since_ms));
    select.bind(":limit", static_cast<std::int64_t>(limit));
    while (select.executeStep()) {
      AlertEventRow row;
      row.time_ms = select.getColumn(0).getInt64();
      row.fingerprint = select.getColumn(1).getString();
      row.kind = select.getColumn(2).getString();
      row.rule = select.getColumn(3).getString();
      row.severity = select.getColumn(4).getString();
      if (!select.getColumn(5).isNull()) row.gpu = static_cast<unsigned>(select.getColumn(5).getInt64());
      if (!select.getColumn(6).isNull()) row.value = select.getColumn(6).getDouble();
      row.alert_json = select.getColumn(7).getString();
      out.push_back(std::move(row));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the alert events from the history database: ") + e.what(), 1);
  }
}

core::Result<std::int64_t> prune_alerts(HistoryDatabase& db, std::int64_t before_ms) {
  try {
    if (!has_alert_tables(db)) return std::int64_t{0};
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    std::int64_t deleted = 0;
    SQLite::Statement events(db.sql(), "DELETE FROM alert_events WHERE time_ms < :before");
    events.bind(":before", static_cast<std::int64_t>(before_ms));
    deleted += events.exec();
    SQLite::Statement alerts(db.sql(), "DELETE FROM alerts WHERE state = 'resolved' AND updated_ms < :before");
    alerts.bind(":before", static_cast<std::int64_t>(before_ms));
    deleted += alerts.exec();
    transaction.commit();
    return deleted;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot prune the alerts: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
