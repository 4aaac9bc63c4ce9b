#include "alert_runtime/alert_monitor.hpp"
#include "core/json_text.hpp"

#include "alerts/alert_json.hpp"
#include "store/alert_log.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::alert_runtime {
namespace {

std::int64_t unix_ms(alerts::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::optional<std::int64_t> unix_ms(const std::optional<alerts::TimePoint>& t) {
  if (!t) return std::nullopt;
  return unix_ms(*t);
}

store::AlertRow alert_row(const alerts::Alert& alert, alerts::TimePoint now) {
  store::AlertRow row;
  row.fingerprint = alert.fingerprint();
  row.rule = alert.rule;
  row.severity = alerts::to_string(alert.severity);
  row.state = alerts::to_string(alert.state);
  row.gpu = alert.gpu;
  row.value = alert.value;
  row.active_since_ms = unix_ms(alert.active_since);
  row.fired_ms = unix_ms(alert.fired_at);
  row.resolved_ms = unix_ms(alert.resolved_at);
  row.updated_ms = unix_ms(now);
  row.alert_json = core::json_text(alerts::to_json(alert));
  return row;
}

store::AlertEventRow event_row(const alerts::AlertEvent& event) {
  store::AlertEventRow row;
  row.time_ms = unix_ms(event.at);
  row.fingerprint = event.alert.fingerprint();
  row.kind = alerts::to_string(event.kind);
  row.rule = event.alert.rule;
  row.severity = alerts::to_string(event.alert.severity);
  row.gpu = event.alert.gpu;
  row.value = event.alert.value;
  row.alert_json = core::json_text(alerts::to_json(event.alert));
  return row;
}

std::string state_key(const alerts::Alert& alert) {
  return alert.fingerprint() + "|" + alerts::to_string(alert.state);
}

}  // namespace

AlertMonitor::AlertMonitor(alerts::Engine engine, MonitorOptions options, std::unique_ptr<store::HistoryDatabase> db)
    : engine_(std::move(engine)), options_(std::move(options)), db_(std::move(db)) {}

AlertMonitor::~AlertMonitor() = default;

core::Result<std::unique_ptr<AlertMonitor>> AlertMonitor::open(alerts::Engine engine, MonitorOptions options) {
  std::unique_ptr<store::HistoryDatabase> db;
  std::vector<alerts::Alert> restored;
  if (!options.db_path.empty()) {
    auto opened = store::HistoryDatabase::open(options.db_path);
    if (!opened) return core::make_error("alerts: " + opened.error().message, opened.error().code);
    db = std::move(*opened);
    auto rows = store::read_open_alerts(*db);
    if (!rows) return core::make_error("alerts: " + rows.error().message, rows.error().code);
    for (const auto& row : *rows) {
      auto alert = alerts::alert_from_json(nlohmann::json::parse(row.alert_json, nullptr, false));
      if (!alert) {
        if (options.log) options.log("alerts: skipped a stored alert that cannot be read (" + alert.error().message + ")");
        continue;
      }
      restored.push_back(std::move(*alert));
    }
  }
  std::unique_ptr<AlertMonitor> monitor(new AlertMonitor(std::move(engine), std::move(options), std::move(db)));
  if (!restored.empty()) {
    for (const auto& alert : restored) {
      monitor->open_.insert(alert.fingerprint());
      monitor->written_.insert(state_key(alert));
    }
    std::vector<alerts::Alert> engine_view = restored;
    for (auto& alert : engine_view) monitor->options_.clock.to_engine(alert);
    monitor->engine_.restore(engine_view);
    monitor->restored_ = restored.size();
    monitor->active_ = std::move(restored);
  }
  return monitor;
}

std::size_t AlertMonitor::rule_count() const { return engine_.rules().rules.size(); }

void AlertMonitor::tick(alerts::TickInput tick) {
  const TimeMap& clock = options_.clock;
  tick.now = clock.to_engine(tick.now);
  for (auto& gpu : tick.gpus) {
    for (auto& xid : gpu.xids) xid.last = clock.to_engine(xid.last);
  }
  std::vector<alerts::AlertEvent> events = engine_.evaluate(tick);
  std::vector<alerts::Alert> active = engine_.active();
  for (auto& alert : active) clock.to_wall(alert);
  for (auto& event : events) {
    event.at = clock.to_wall(event.at);
    clock.to_wall(event.alert);
  }
  persist(active, events);
  if (options_.notify && !events.empty()) options_.notify(events, active);
  if (options_.publish) options_.publish(active, events);
  {
    std::lock_guard lock(mutex_);
    active_ = std::move(active);
  }
}

void AlertMonitor::persist(const std::vector<alerts::Alert>& active, const std::vector<alerts::AlertEvent>& events) {
  std::vector<store::AlertRow> rows;
  std::vector<store::AlertEventRow> event_rows;
  std::set<std::string> now_open, now_written;
  const auto now = std::chrono::system_clock::now();
  std::set<std::string> resolved;
  for (const auto& event : events) {
    event_rows.push_back(event_row(event));
    if (event.kind == alerts::EventKind::Resolved) {
      resolved.insert(event.alert.fingerprint());
      rows.push_back(alert_row(event.alert, now));
    }
  }
  for (const auto& alert : active) {
    const std::string fp = alert.fingerprint();
    now_open.insert(fp);
    const std::string key = state_key(alert);
    now_written.insert(key);
    bool notified = false;  // a repeat moves last_notified: write it, so a restart repeats on time
    for (const auto& event : events) notified = notified || event.alert.fingerprint() == fp;
    if (written_.count(key) == 0 || notified) rows.push_back(alert_row(alert, now));
  }
  std::vector<std::string> forget;  // pending alerts whose condition went away before firing
  for (const auto& fp : open_) {
    if (now_open.count(fp) == 0 && resolved.count(fp) == 0) forget.push_back(fp);
  }
  open_ = std::move(now_open);
  written_ = std::move(now_written);
  if (!db_ || db_failed_ || (rows.empty() && event_rows.empty() && forget.empty())) return;
  if (auto written = store::write_alerts(*db_, rows, event_rows, forget); !written) {
    db_failed_ = true;  // told once; the engine goes on in memory
    if (options_.log) options_.log(written.error().message + " (alerts go on in memory; their state is not kept)");
  }
}

std::vector<alerts::Alert> AlertMonitor::active() const {
  std::lock_guard lock(mutex_);
  return active_;
}

}  // namespace gpuwatch::alert_runtime
