#pragma once
// Alert events built by hand for the notification tests.
#include <chrono>
#include <optional>
#include <string>

#include "alerts/alert.hpp"

namespace gpuwatch::notify::testing {

inline alerts::TimePoint at_s(std::int64_t seconds) {
  return alerts::TimePoint(std::chrono::seconds(seconds));
}

constexpr std::int64_t kT0 = 1'780'000'000;  // 2026-05-28T20:26:40Z

inline alerts::AlertEvent make_event(alerts::EventKind kind, const std::string& rule, alerts::Severity severity,
                                     std::optional<unsigned> gpu, const std::string& host = "node-1") {
  alerts::AlertEvent event;
  event.kind = kind;
  event.at = at_s(kT0 + 600);
  auto& a = event.alert;
  a.rule = rule;
  a.severity = severity;
  a.state = kind == alerts::EventKind::Resolved ? alerts::AlertState::Resolved : alerts::AlertState::Firing;
  a.gpu = gpu;
  a.labels = {{"alertname", rule}, {"severity", alerts::to_string(severity)}, {"host", host}};
  if (gpu) {
    a.labels["gpu"] = std::to_string(*gpu);
    a.labels["uuid"] = "GPU-0000000" + std::to_string(*gpu);
  }
  a.annotations = {{"summary", rule + " on GPU " + (gpu ? std::to_string(*gpu) : std::string("-"))},
                   {"runbook", "docs/alerts.md"}};
  a.value = 91.0;
  a.active_since = at_s(kT0);
  a.fired_at = at_s(kT0 + 300);
  if (kind == alerts::EventKind::Resolved) a.resolved_at = at_s(kT0 + 600);
  return event;
}

}  // namespace gpuwatch::notify::testing
