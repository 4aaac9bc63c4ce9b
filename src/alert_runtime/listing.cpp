#include "alert_runtime/listing.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>

#include "alerts/alert_json.hpp"
#include "core/field_format.hpp"
#include "store/alert_log.hpp"
#include "store/history_database.hpp"
#include "terminal/style.hpp"
#include "terminal/text_table.hpp"

namespace gpuwatch::alert_runtime {
namespace {

std::string summary_of(const alerts::Alert& alert) {
  auto it = alert.annotations.find("summary");
  return it != alert.annotations.end() ? it->second : alert.rule;
}

std::string gpu_of(const alerts::Alert& alert) { return alert.gpu ? std::to_string(*alert.gpu) : "node"; }

terminal::Color color_of(alerts::Severity severity) {
  switch (severity) {
    case alerts::Severity::Critical: return terminal::Color::BoldRed;
    case alerts::Severity::Warning: return terminal::Color::Yellow;
    case alerts::Severity::Info: return terminal::Color::Cyan;
  }
  return terminal::Color::Plain;
}

}  // namespace

core::Result<Listing> read_listing(const std::string& db_path, alerts::TimePoint since, std::size_t max_events) {
  store::OpenOptions options;
  options.read_only = true;
  auto db = store::HistoryDatabase::open(db_path, options);
  if (!db) return db.error();
  Listing listing;
  listing.since = since;
  listing.database = db_path;
  auto open = store::read_open_alerts(**db);
  if (!open) return open.error();
  for (const auto& row : *open) {
    auto alert = alerts::alert_from_json(nlohmann::json::parse(row.alert_json, nullptr, false));
    if (alert) listing.open.push_back(std::move(*alert));
  }
  const auto since_ms = std::chrono::duration_cast<std::chrono::milliseconds>(since.time_since_epoch()).count();
  auto events = store::read_alert_events_since(**db, since_ms, max_events);
  if (!events) return events.error();
  for (const auto& row : *events) {
    auto alert = alerts::alert_from_json(nlohmann::json::parse(row.alert_json, nullptr, false));
    if (!alert) continue;
    alerts::AlertEvent event;
    event.kind = row.kind == "resolved" ? alerts::EventKind::Resolved
                 : row.kind == "repeat" ? alerts::EventKind::Repeat
                                        : alerts::EventKind::Firing;
    event.at = alerts::TimePoint(std::chrono::duration_cast<alerts::TimePoint::duration>(std::chrono::milliseconds(row.time_ms)));
    event.alert = std::move(*alert);
    listing.events.push_back(std::move(event));
  }
  return listing;
}

std::string render_listing_text(const Listing& listing, bool color) {
  const terminal::Style style(color);
  std::string out;
  std::size_t firing = 0;
  for (const auto& a : listing.open) firing += a.state == alerts::AlertState::Firing ? 1 : 0;
  if (listing.open.empty()) {
    out += style.paint("No alert is pending or firing", terminal::Color::Green) + "\n";
  } else {
    out += style.paint(fmt::format("Firing {}, pending {}", firing, listing.open.size() - firing), terminal::Color::Bold) + "\n";
    std::vector<std::vector<std::string>> rows = {{"STATE", "SINCE", "GPU", "SEVERITY", "ALERT", "SUMMARY"}};
    for (const auto& a : listing.open) {
      rows.push_back({alerts::to_string(a.state), core::format_timestamp(a.fired_at.value_or(a.active_since)), gpu_of(a),
                      alerts::to_string(a.severity), a.rule, summary_of(a)});
    }
    std::string table = terminal::text_table(rows);
    // Each alert's line in its severity's colour (after alignment: escape codes would break the padding).
    std::size_t line_start = table.find('\n') + 1;
    std::string painted = table.substr(0, line_start);
    for (const auto& a : listing.open) {
      std::size_t line_end = table.find('\n', line_start);
      painted += style.paint(table.substr(line_start, line_end - line_start), color_of(a.severity)) + "\n";
      line_start = line_end + 1;
    }
    table = std::move(painted);
    out += table;
  }
  out += "\n" + style.paint(fmt::format("Events since {}", core::format_timestamp(listing.since)), terminal::Color::Bold) + "\n";
  if (listing.events.empty()) {
    out += "none\n";
  } else {
    std::vector<std::vector<std::string>> rows = {{"TIME", "EVENT", "GPU", "SEVERITY", "ALERT", "SUMMARY"}};
    for (const auto& e : listing.events) {
      rows.push_back({core::format_timestamp(e.at), alerts::to_string(e.kind), gpu_of(e.alert),
                      alerts::to_string(e.alert.severity), e.alert.rule, summary_of(e.alert)});
    }
    out += terminal::text_table(rows);
  }
  return out;
}

std::string render_listing_json(const Listing& listing) {
  nlohmann::json out;
  out["database"] = listing.database;
  out["since"] = alerts::unix_seconds(listing.since);
  out["alerts"] = alerts::alerts_json(listing.open)["alerts"];
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : listing.events) events.push_back(alerts::to_json(e));
  out["events"] = std::move(events);
  return core::json_text(out, 2) + "\n";
}

}  // namespace gpuwatch::alert_runtime
