#include "alerts/alert_json.hpp"

#include <cmath>

namespace gpuwatch::alerts {
namespace {

nlohmann::json optional_time(const std::optional<TimePoint>& t) {
  return t ? nlohmann::json(unix_seconds(*t)) : nlohmann::json(nullptr);
}

std::optional<TimePoint> read_optional_time(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || it->is_null()) return std::nullopt;
  return from_unix_seconds(it->get<double>());
}

Labels read_labels(const nlohmann::json& json) {
  Labels labels;
  for (const auto& [key, value] : json.items()) labels[key] = value.get<std::string>();
  return labels;
}

}  // namespace

double unix_seconds(TimePoint t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

TimePoint from_unix_seconds(double seconds) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(seconds)));
}

nlohmann::json to_json(const Alert& alert) {
  nlohmann::json json = {
      {"name", alert.rule},
      {"severity", to_string(alert.severity)},
      {"state", to_string(alert.state)},
      {"gpu", alert.gpu ? nlohmann::json(*alert.gpu) : nlohmann::json(nullptr)},
      {"fingerprint", alert.fingerprint()},
      {"labels", alert.labels},
      {"annotations", alert.annotations},
      {"value", alert.value && std::isfinite(*alert.value) ? nlohmann::json(*alert.value) : nlohmann::json(nullptr)},
      {"active_since", unix_seconds(alert.active_since)},
      {"fired_at", optional_time(alert.fired_at)},
      {"resolved_at", optional_time(alert.resolved_at)},
      {"last_notified", optional_time(alert.last_notified)},
  };
  if (!alert.raw_annotations.empty()) {  // only for rules that opt into raw text (`| raw`)
    nlohmann::json spans = nlohmann::json::object();
    for (const auto& [name, pieces] : alert.raw_annotations) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& piece : pieces) list.push_back({{"text", piece.text}, {"raw", piece.raw}});
      spans[name] = std::move(list);
    }
    json["raw_annotations"] = std::move(spans);
  }
  return json;
}

nlohmann::json to_json(const AlertEvent& event) {
  return {{"event", to_string(event.kind)}, {"at", unix_seconds(event.at)}, {"alert", to_json(event.alert)}};
}

nlohmann::json alerts_json(std::span<const Alert> alerts) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& alert : alerts) list.push_back(to_json(alert));
  return {{"alerts", std::move(list)}};
}

core::Result<Alert> alert_from_json(const nlohmann::json& json) {
  const char* key = "";
  try {
    Alert alert;
    key = "name";
    alert.rule = json.at(key).get<std::string>();
    key = "severity";
    auto severity = severity_from_string(json.at(key).get<std::string>());
    if (!severity) return core::make_error("alert JSON: unknown severity");
    alert.severity = *severity;
    key = "state";
    auto state = alert_state_from_string(json.at(key).get<std::string>());
    if (!state) return core::make_error("alert JSON: unknown state");
    alert.state = *state;
    key = "gpu";
    if (auto it = json.find(key); it != json.end() && !it->is_null()) alert.gpu = it->get<unsigned>();
    key = "labels";
    alert.labels = read_labels(json.at(key));
    key = "annotations";
    alert.annotations = read_labels(json.at(key));
    key = "raw_annotations";
    if (auto it = json.find(key); it != json.end() && it->is_object()) {
      for (const auto& [name, list] : it->items()) {
        auto& pieces = alert.raw_annotations[name];
        for (const auto& piece : list) pieces.push_back({piece.at("text").get<std::string>(), piece.at("raw").get<bool>()});
      }
    }
    key = "value";
    if (auto it = json.find(key); it != json.end() && !it->is_null()) alert.value = it->get<double>();
    key = "active_since";
    alert.active_since = from_unix_seconds(json.at(key).get<double>());
    key = "fired_at";
    alert.fired_at = read_optional_time(json, key);
    key = "resolved_at";
    alert.resolved_at = read_optional_time(json, key);
    key = "last_notified";
    alert.last_notified = read_optional_time(json, key);
    return alert;
  } catch (const nlohmann::json::exception& e) {
    return core::make_error(std::string("alert JSON: key '") + key + "': " + e.what());
  }
}

}  // namespace gpuwatch::alerts
