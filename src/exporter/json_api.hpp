#pragma once
// The exporter's JSON API (/api/v1/snapshot, /api/v1/history, /api/v1/events), as
// pure renderers: no I/O, no clock (the caller passes "now"), no NVML. Keys are the
// field table's JSON keys (snake_case, base units: memory_used_bytes, power_draw_w,
// utilization_gpu_ratio, temperature_gpu_c); an absent value is null, never 0.
// docs/api.md documents the shapes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "exporter/history_request.hpp"  // parse_history_request (?seconds=, ?gpu=)
#include "exporter/prometheus_encoder.hpp"
#include "live/sample_history.hpp"

namespace gpuwatch::exporter {

inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";
inline constexpr std::string_view kEventStreamContentType = "text/event-stream";

// GET /api/v1/snapshot: the latest sample of every GPU with its freshness (up,
// sample_age_seconds), every exported field and its processes; "host": what the host was doing
// (status --json's object; null when not sampled). A GPU that is not up
// keeps its identity (uuid, name, ...) and has its other fields null, as /metrics
// drops their series.
std::string snapshot_json(const live::LiveView& view);

// GET /api/v1/host (issue 25): {"latest": the latest host sample as `status --json`'s "host"
// object (null: none yet, or serve --no-host), "series": {"t": [Unix s...], "<host_fields() key>":
// [...], ...}} from ROWS (the history's host ring), every array as long as "t", null where absent.
std::string host_api_json(const host_signals::HostSample* latest, const std::vector<live::HostRow>& rows);

// Where the rows of a history answer come from: "memory" (the ring buffer, at the sampling
// interval) or "store" (the database, averaged into buckets of resolution_s).
struct HistoryOrigin {
  std::string_view source = "memory";
  std::optional<double> resolution_s;     // nullopt: the sampling interval
  std::optional<std::string> store_error; // why the store was asked but could not answer
};

// GET /api/v1/history: columnar (uPlot-ready) per GPU: timestamp_s[], up[], processes[]
// and one array per kHistoryFields key, all of the same length. GPUS lists the GPU
// indices to include (each gets an entry, maybe with empty arrays); ROWS are theirs.
// Top level: seconds, interval_s, capacity, source, resolution_seconds (, store_error).
std::string history_json(const std::vector<live::HistoryRow>& rows, const std::vector<unsigned>& gpus,
                         std::optional<double> seconds, std::size_t capacity, double interval_s,
                         const HistoryOrigin& origin = {});

// One row as an object: {"seq","gpu","timestamp_s","up","processes", <field keys>...}.
std::string history_row_json(const live::HistoryRow& row);
// A server-sent event carrying ROW: "id: SEQ\nevent: sample\ndata: {...}\n\n".
std::string sample_event(const live::HistoryRow& row);

// {"error": MESSAGE}
std::string error_json(std::string_view message);
// GET /api/v1/alerts: {"engine": bool, "alerts": [pending and firing], "recently_resolved": [...]}
// (alerts/alert_json.hpp has the alert objects).
std::string alerts_api_json(const std::vector<alerts::Alert>& active, const std::vector<alerts::Alert>& resolved,
                            bool engine_running);
// One server-sent event for an alert event: "id: a<seq>", "event: alert", the event as JSON.
std::string alert_event(std::uint64_t seq, const alerts::AlertEvent& event);

}  // namespace gpuwatch::exporter
