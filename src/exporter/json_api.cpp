#include "exporter/json_api.hpp"
#include "core/json_text.hpp"

#include "attribution/attribution_json.hpp"

#include "alerts/alert_json.hpp"

#include <algorithm>

#include "diagnose/finding_json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <variant>

#include "core/field_table.hpp"
#include "exporter/metric_list.hpp"
#include "host_signals/host_fields.hpp"
#include "status/host_line.hpp"

namespace gpuwatch::exporter {
namespace {

using Json = nlohmann::ordered_json;

Json reading_json(const core::FieldReading& reading) {
  if (!reading.ok()) return nullptr;
  return std::visit([](const auto& v) { return Json(v); }, *reading.value);
}

// A stored double: null for NaN, an integer when it is one (bytes, hertz), else the double.
Json number_json(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return nullptr;  // JSON has no infinity
  if (v == std::trunc(v) && std::fabs(v) < 9.007199254740992e15) return Json(static_cast<std::int64_t>(v));
  return Json(v);
}

template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json();
}

// Milliseconds are enough for a timestamp, and print short.
double round_ms(double seconds) { return std::round(seconds * 1000.0) / 1000.0; }

std::set<core::FieldId> identity_field_set() {
  std::set<core::FieldId> ids = {core::FieldId::Uuid};
  for (const auto& label : info_labels()) ids.insert(label.field);
  return ids;
}

// status --json's "host" object (the same keys), with the GPU processes' trees.
Json host_object_json(const host_signals::HostSample& host) {
  Json j = status::host_json(host);
  if (!j.contains("process_trees")) {
    Json trees = Json::array();
    for (const auto& t : host.process_trees) {
      trees.push_back({{"pid", t.pid}, {"cpu_cores", optional_json(t.cpu_cores)}, {"processes", t.processes}});
    }
    j["process_trees"] = std::move(trees);
  }
  return j;
}

// A host value: null for NaN (absent); a count of bytes as an integer (as status --json writes it).
Json host_number_json(double v, bool whole) {
  if (!std::isfinite(v)) return Json();
  return whole ? Json(static_cast<std::uint64_t>(v)) : Json(v);
}

Json process_json(const core::ProcessSample& p, const live::LiveView& view) {
  Json j;
  j["pid"] = p.pid;
  j["name"] = p.name.empty() ? Json() : Json(p.name);
  auto user = view.process_users.find(p.pid);
  j["user"] = user == view.process_users.end() ? Json() : Json(user->second);
  j["type"] = core::to_string(p.type);
  j["used_memory_bytes"] = optional_json(p.used_memory_bytes);
  j["sm_ratio"] = optional_json(p.sm_ratio);
  j["memory_ratio"] = optional_json(p.memory_ratio);
  j["encoder_ratio"] = optional_json(p.encoder_ratio);
  j["decoder_ratio"] = optional_json(p.decoder_ratio);
  j["gpu_instance_id"] = optional_json(p.gpu_instance_id);
  j["compute_instance_id"] = optional_json(p.compute_instance_id);
  // What /proc says (serve reads it for every GPU process): null when not read or not visible.
  auto info = view.process_info.find(p.pid);
  static const host::ProcessInfo none{};
  const host::ProcessInfo& host_info = info == view.process_info.end() ? none : info->second;
  j["command_line"] = optional_json(host_info.command_line);
  j["host_cpu_ratio"] = optional_json(host_info.cpu_ratio);
  j["host_rss_bytes"] = optional_json(host_info.rss_bytes);
  j["run_seconds"] = host_info.run_seconds ? Json(std::round(*host_info.run_seconds)) : Json();
  // issue 15: container, pod, Slurm job; null when attribution is off, else every key present.
  auto owner = view.process_owners.find(p.pid);
  j["owner"] = owner == view.process_owners.end() ? Json() : Json(attribution::attribution_json(owner->second));
  return j;
}

Json device_json(const core::DeviceSnapshot& device, const live::DeviceStatus& status, const live::LiveView& view) {
  static const std::set<core::FieldId> identity = identity_field_set();
  static const std::vector<core::FieldId> fields = exported_fields();
  Json d;
  d["index"] = device.index;
  d["vendor"] = core::to_string(device.vendor);  // issue 28: known before the first sample
  d["state"] = status.has_sample ? Json(core::to_string(device.state)) : Json("not_sampled");
  d["error"] = status.has_sample && device.state != core::DeviceState::Ok
                   ? Json(view.snapshot->error_string(device.error))
                   : Json();
  d["up"] = status.up;
  d["sample_age_seconds"] = status.has_sample ? Json(status.sample_age_seconds) : Json();
  d["collect_duration_seconds"] = status.has_sample ? Json(status.collect_duration_seconds) : Json();
  for (core::FieldId id : fields) {
    const auto& info = core::field_info(id);
    if (info.source == core::Source::System || id == core::FieldId::Index) continue;  // top level / above
    bool show = status.up || identity.count(id) != 0;
    d[std::string(info.json_key)] = show ? reading_json(device.get(id)) : Json();
  }
  if (status.up && device.processes_status == core::FieldStatus::Ok) {
    Json processes = Json::array();
    for (const auto& p : device.processes) processes.push_back(process_json(p, view));
    d["processes"] = std::move(processes);
  } else {
    d["processes"] = nullptr;  // not readable, or the GPU is not up
  }
  Json xids = Json::array();  // Xid events since serve started (kept while the GPU is down)
  for (const auto& x : view.xid_events) {
    if (x.gpu != device.index) continue;
    Json j;
    j["xid"] = x.xid;
    j["count"] = x.count;
    j["last_seen_s"] = round_ms(x.last_seen_unix_s);
    xids.push_back(std::move(j));
  }
  d["xid_events"] = std::move(xids);
  // The GPU's active findings, worst first (the full objects are in the top-level array).
  Json findings = Json::array();
  for (const auto& f : view.findings) {
    if (std::find(f.gpus.begin(), f.gpus.end(), device.index) == f.gpus.end()) continue;
    findings.push_back({{"kind", f.kind}, {"severity", diagnose::to_string(f.severity)}, {"summary", f.summary}});
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Json& a, const Json& b) {
    auto rank = [](const Json& j) { auto s = j["severity"].get<std::string>(); return s == "critical" ? 0 : s == "warning" ? 1 : 2; };
    return rank(a) < rank(b);
  });
  d["findings"] = std::move(findings);
  // The GPU's pending and firing alerts (the full objects are in the top-level array).
  Json gpu_alerts = Json::array();
  for (const auto& a : view.alerts) {
    if (!a.gpu || *a.gpu != device.index) continue;
    gpu_alerts.push_back({{"name", a.rule}, {"severity", alerts::to_string(a.severity)}, {"state", alerts::to_string(a.state)},
                          {"summary", a.annotations.count("summary") ? a.annotations.at("summary") : a.rule}});
  }
  d["alerts"] = std::move(gpu_alerts);
  return d;
}

}  // namespace

std::string snapshot_json(const live::LiveView& view) {
  Json out;
  const core::Snapshot* s = view.snapshot;
  if (s == nullptr || s->devices.size() != view.status.size()) return error_json("no snapshot");
  out["timestamp_s"] = round_ms(std::chrono::duration<double>(s->timestamp.time_since_epoch()).count());
  out["driver_version"] = optional_json(s->driver_version);
  out["cuda_driver_version"] = optional_json(s->cuda_driver_version);
  out["device_count"] = s->device_count;
  out["collector_success"] = view.collector_success;
  Json gpus = Json::array();
  for (std::size_t i = 0; i < s->devices.size(); ++i) gpus.push_back(device_json(s->devices[i], view.status[i], view));
  out["gpus"] = std::move(gpus);
  out["findings"] = diagnose::findings_json(view.findings)["findings"];
  out["alerts"] = alerts::alerts_json(view.alerts)["alerts"];
  out["host"] = s->host ? host_object_json(*s->host) : Json();  // issue 25
  return core::json_text(out);
}

std::string host_api_json(const host_signals::HostSample* latest, const std::vector<live::HostRow>& rows) {
  Json out;
  out["latest"] = latest != nullptr ? host_object_json(*latest) : Json();
  Json series = Json::object();
  Json t = Json::array();
  for (const auto& row : rows) t.push_back(round_ms(row.timestamp_s));
  series["t"] = std::move(t);
  const auto& fields = host_signals::host_fields();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    Json column = Json::array();
    for (const auto& row : rows) column.push_back(f < row.values.size() ? host_number_json(row.values[f], fields[f].whole) : Json());
    series[std::string(fields[f].key)] = std::move(column);
  }
  out["series"] = std::move(series);
  return core::json_text(out);
}

std::string alerts_api_json(const std::vector<alerts::Alert>& active, const std::vector<alerts::Alert>& resolved,
                            bool engine_running) {
  Json out;
  out["engine"] = engine_running;
  out["alerts"] = alerts::alerts_json(active)["alerts"];
  out["recently_resolved"] = alerts::alerts_json(resolved)["alerts"];
  return core::json_text(out);
}

std::string alert_event(std::uint64_t seq, const alerts::AlertEvent& event) {
  (void)seq;  // no "id:" line: Last-Event-ID stays the samples' sequence number (what a reconnect resumes)
  return "event: alert\ndata: " + core::json_text(alerts::to_json(event)) + "\n\n";
}

std::string history_json(const std::vector<live::HistoryRow>& rows, const std::vector<unsigned>& gpus,
                         std::optional<double> seconds, std::size_t capacity, double interval_s,
                         const HistoryOrigin& origin) {
  Json out;
  out["seconds"] = optional_json(seconds);
  out["interval_s"] = interval_s;
  out["capacity"] = capacity;
  out["source"] = std::string(origin.source);
  out["resolution_seconds"] = origin.resolution_s.value_or(interval_s);
  if (origin.store_error) out["store_error"] = *origin.store_error;
  Json fields = Json::array();
  for (core::FieldId id : live::kHistoryFields) fields.push_back(std::string(core::field_info(id).json_key));
  out["fields"] = fields;
  std::map<unsigned, std::vector<const live::HistoryRow*>> by_gpu;
  for (unsigned g : gpus) by_gpu[g];
  for (const auto& row : rows) {
    auto found = by_gpu.find(row.gpu);
    if (found != by_gpu.end()) found->second.push_back(&row);
  }
  Json list = Json::array();
  for (const auto& [gpu, gpu_rows] : by_gpu) {
    Json g;
    g["index"] = gpu;
    Json ts = Json::array(), up = Json::array(), processes = Json::array();
    std::vector<Json> columns(live::kHistoryFields.size(), Json::array());
    for (const live::HistoryRow* r : gpu_rows) {
      ts.push_back(round_ms(r->timestamp_s));
      up.push_back(r->up);
      processes.push_back(optional_json(r->processes));
      for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) columns[f].push_back(number_json(r->values[f]));
    }
    g["timestamp_s"] = std::move(ts);
    g["up"] = std::move(up);
    g["processes"] = std::move(processes);
    for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) {
      g[std::string(core::field_info(live::kHistoryFields[f]).json_key)] = std::move(columns[f]);
    }
    // Store answers: each bucket's spread, {"min": {key: [...]}, "max": {...}}, parallel to
    // timestamp_s (null where the bucket has none); absent for live rows.
    if (std::any_of(gpu_rows.begin(), gpu_rows.end(), [](const live::HistoryRow* r) { return r->band != nullptr; })) {
      Json low = Json::object(), high = Json::object();
      for (std::size_t f = 0; f < live::kBandFields.size(); ++f) {
        Json lows = Json::array(), highs = Json::array();
        for (const live::HistoryRow* r : gpu_rows) {
          lows.push_back(r->band ? number_json(r->band->min[f]) : Json());
          highs.push_back(r->band ? number_json(r->band->max[f]) : Json());
        }
        const std::string key(core::field_info(live::kBandFields[f]).json_key);
        low[key] = std::move(lows);
        high[key] = std::move(highs);
      }
      g["min"] = std::move(low);
      g["max"] = std::move(high);
    }
    list.push_back(std::move(g));
  }
  out["gpus"] = std::move(list);
  return core::json_text(out);
}

std::string history_row_json(const live::HistoryRow& row) {
  Json j;
  j["seq"] = row.seq;
  j["gpu"] = row.gpu;
  j["timestamp_s"] = round_ms(row.timestamp_s);
  j["up"] = row.up;
  j["processes"] = optional_json(row.processes);
  for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) {
    j[std::string(core::field_info(live::kHistoryFields[f]).json_key)] = number_json(row.values[f]);
  }
  return core::json_text(j);
}

std::string sample_event(const live::HistoryRow& row) {
  // dump() never emits a raw newline, so the data fits on one "data:" line.
  return "id: " + std::to_string(row.seq) + "\nevent: sample\ndata: " + history_row_json(row) + "\n\n";
}

std::string error_json(std::string_view message) {
  Json j;
  j["error"] = std::string(message);
  return core::json_text(j);
}

}  // namespace gpuwatch::exporter
