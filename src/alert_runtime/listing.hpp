#pragma once
// `gpuwatch alerts`: the alerts the history database holds (serve and record keep them there):
// those pending and firing now, and the events of the recent past, as a table or as JSON.
//   Firing and pending (2)
//   STATE    SINCE                    GPU  SEVERITY  ALERT               SUMMARY
//   firing   2026/11/30 09:12:03.120  3    warning   GpuTemperatureHigh  GPU 3 on node1 is at 91 °C
//   Recent events (last 24h)
//   TIME  EVENT  GPU  SEVERITY  ALERT  SUMMARY
// JSON: {"alerts": [...], "events": [...], "since": unix_s, "database": path} (docs/alerts.md).
#include <chrono>
#include <string>
#include <vector>

#include "alerts/alert.hpp"
#include "core/result.hpp"

namespace gpuwatch::alert_runtime {

struct Listing {
  std::vector<alerts::Alert> open;          // pending and firing, oldest first
  std::vector<alerts::AlertEvent> events;   // since the start of the window, oldest first
  alerts::TimePoint since{};
  std::string database;
};

// Reads DB_PATH (read-only). At most MAX_EVENTS events (the newest).
core::Result<Listing> read_listing(const std::string& db_path, alerts::TimePoint since, std::size_t max_events = 1000);

std::string render_listing_text(const Listing& listing, bool color);
std::string render_listing_json(const Listing& listing);

}  // namespace gpuwatch::alert_runtime
