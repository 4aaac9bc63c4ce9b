#include "report/timeline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string_view>

#include "diagnose/kinds.hpp"
#include "diagnose/xid_catalog.hpp"

namespace gpuwatch::report {
namespace {

// The event kind of a finding (its kind's timeline column in diagnose/kinds.def: hardware kinds
// have their own), "" for one left out. A "finding" at info is left out; a kind this build
// does not know (a newer build's history) is a "finding".
std::string finding_event_kind(const diagnose::Finding& f) {
  const auto kind = diagnose::kind_of_id(f.kind);
  const std::string_view event = kind ? diagnose::kind_info(*kind).timeline_event : "finding";
  if (event == "finding" && f.severity == diagnose::Severity::Info) return "";
  return std::string(event);
}

// The alert's summary from its JSON (alerts/alert_json.hpp), "" when it has none.
std::string alert_summary(const std::string& alert_json) {
  const auto alert = nlohmann::json::parse(alert_json, nullptr, false);
  if (!alert.is_object()) return "";
  for (const char* key : {"summary", "description"}) {
    if (alert.contains(key) && alert[key].is_string()) return alert[key].get<std::string>();
    if (alert.contains("annotations") && alert["annotations"].is_object() && alert["annotations"].contains(key) &&
        alert["annotations"][key].is_string())
      return alert["annotations"][key].get<std::string>();
  }
  return "";
}

}  // namespace

std::vector<TimelineEvent> report_timeline(const store::HistoryReport& report, const ReportFindings& findings,
                                           std::size_t limit, std::size_t* truncated) {
  std::vector<TimelineEvent> events;
  for (const auto& x : report.xid_events) {
    const auto info = diagnose::xid_info(x.xid);
    events.push_back({x.time_ms, {x.gpu}, "xid", info.severity, fmt::format("Xid {}: {}", x.xid, info.meaning)});
  }
  for (const auto& a : report.alert_events) {
    std::optional<diagnose::Severity> severity;
    if (a.kind != "resolved") severity = diagnose::severity_from_string(a.severity).value_or(diagnose::Severity::Warning);
    std::vector<unsigned> gpus;
    if (a.gpu) gpus.push_back(*a.gpu);
    std::string text = fmt::format("alert {} {}", a.rule, a.kind);
    if (const auto summary = alert_summary(a.alert_json); !summary.empty()) text += ": " + summary;
    events.push_back({a.time_ms, std::move(gpus), "alert", severity, std::move(text)});
  }
  for (const auto& f : findings.findings) {
    const std::string kind = finding_event_kind(f);
    if (kind.empty()) continue;
    events.push_back({unix_ms(f.start), f.gpus, kind, f.severity, f.summary.empty() ? f.kind : f.summary});
  }
  auto rank = [](const std::string& kind) { return kind == "xid" ? 0 : kind == "alert" ? 1 : 2; };
  std::stable_sort(events.begin(), events.end(), [&](const TimelineEvent& a, const TimelineEvent& b) {
    if (a.time_ms != b.time_ms) return a.time_ms < b.time_ms;
    return rank(a.kind) < rank(b.kind);
  });
  if (truncated != nullptr) *truncated = events.size() > limit ? events.size() - limit : 0;
  if (events.size() > limit) events.resize(limit);
  return events;
}

}  // namespace gpuwatch::report
