#include "status/throttle.hpp"

#include <algorithm>

namespace gpuwatch::status {

using terminal::Severity;

const std::vector<ThrottleReason>& throttle_reasons() {
  static const std::vector<ThrottleReason> reasons = {
      {0x1, "gpu_idle", "", Severity::Ok},
      {0x2, "applications_clocks_setting", "", Severity::Ok},
      {0x4, "sw_power_cap", "power cap", Severity::Warn},
      {0x8, "hw_slowdown", "HW slowdown", Severity::Critical},
      {0x10, "sync_boost", "", Severity::Ok},
      {0x20, "sw_thermal_slowdown", "thermal", Severity::Critical},
      {0x40, "hw_thermal_slowdown", "thermal", Severity::Critical},
      {0x80, "hw_power_brake_slowdown", "power brake", Severity::Critical},
      {0x100, "display_clock_setting", "", Severity::Ok},
  };
  return reasons;
}

std::optional<std::vector<ThrottleReason>> active_throttle_reasons(const core::DeviceSnapshot& device) {
  const core::FieldReading& reading = device.get(core::FieldId::ClocksEventReasonsActive);
  if (!reading.ok()) return std::nullopt;
  auto mask = reading.as_uint();
  if (!mask) return std::nullopt;
  const std::uint64_t bits = *mask;
  std::vector<ThrottleReason> active;
  for (const auto& reason : throttle_reasons()) {
    if (bits & reason.bit) active.push_back(reason);
  }
  return active;
}

std::string ThrottleMarker::joined(std::string_view separator) const {
  std::string out;
  for (const auto& label : labels) {
    if (!out.empty()) out += separator;
    out += label;
  }
  return out;
}

ThrottleMarker throttle_marker(const core::DeviceSnapshot& device) {
  ThrottleMarker marker;
  auto active = active_throttle_reasons(device);
  if (!active) return marker;
  for (const auto& reason : *active) {
    if (reason.label.empty()) continue;
    if (std::find(marker.labels.begin(), marker.labels.end(), reason.label) == marker.labels.end()) {
      marker.labels.emplace_back(reason.label);
    }
    marker.severity = std::max(marker.severity, reason.severity);
  }
  return marker;
}

}  // namespace gpuwatch::status
