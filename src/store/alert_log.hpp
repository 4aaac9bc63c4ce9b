#pragma once
// The alerts' state and history in the history database (schema 6): table `alerts` holds the
// latest state of every alert by fingerprint (a restart restores the pending and firing ones,
// so a firing alert is neither forgotten nor notified twice), table `alert_events` every
// firing, repeat and resolved event. Rows carry the alert as JSON (alerts/alert_json.hpp) next
// to the columns queries filter on; this file knows nothing of the alert's shape beyond them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct AlertRow {
  std::string fingerprint;
  std::string rule, severity, state;   // state: pending, firing, resolved
  std::optional<unsigned> gpu;         // nullopt: a node alert
  std::optional<double> value;
  std::int64_t active_since_ms = 0;
  std::optional<std::int64_t> fired_ms, resolved_ms;
  std::int64_t updated_ms = 0;
  std::string alert_json;
};

struct AlertEventRow {
  std::int64_t time_ms = 0;
  std::string fingerprint, kind, rule, severity;  // kind: firing, repeat, resolved
  std::optional<unsigned> gpu;
  std::optional<double> value;
  std::string alert_json;
};

// Writes the alerts' latest state (insert or replace by fingerprint) and appends the events, in
// one transaction. Alerts that went back from pending to nothing are deleted (FORGET).
core::Result<void> write_alerts(HistoryDatabase& db, const std::vector<AlertRow>& alerts,
                                const std::vector<AlertEventRow>& events, const std::vector<std::string>& forget = {});

// Alerts pending or firing, oldest first: what the engine restores at start.
core::Result<std::vector<AlertRow>> read_open_alerts(const HistoryDatabase& db);
// Alerts updated at or after SINCE_MS (any state), newest first, at most LIMIT.
core::Result<std::vector<AlertRow>> read_alerts_since(const HistoryDatabase& db, std::int64_t since_ms, std::size_t limit);
// Events at or after SINCE_MS, oldest first, at most LIMIT (the newest LIMIT).
core::Result<std::vector<AlertEventRow>> read_alert_events_since(const HistoryDatabase& db, std::int64_t since_ms,
                                                                 std::size_t limit);
// Drops resolved alerts and events older than BEFORE_MS (retention). Returns rows deleted.
core::Result<std::int64_t> prune_alerts(HistoryDatabase& db, std::int64_t before_ms);

}  // namespace gpuwatch::store
