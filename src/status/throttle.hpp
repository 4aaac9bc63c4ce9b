#pragma once
// The clock-event ("throttle") reasons the driver reports (field clocks_event_reasons), by name.
// `status` marks a GPU whose clocks are held down for a reason that means trouble (thermal,
// power cap, hardware slowdown, power brake); idle, application clocks, sync boost and display
// clock settings are not trouble and get no marker. JSON lists every active reason.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.hpp"
#include "terminal/severity.hpp"

namespace gpuwatch::status {

struct ThrottleReason {
  std::uint64_t bit;
  std::string_view key;    // JSON: the clocks_event_reasons.* field name without its prefix
  std::string_view label;  // text marker; "" for reasons that are not trouble
  terminal::Severity severity;
};

// Every reason gpuwatch knows, in NVML's bit order.
const std::vector<ThrottleReason>& throttle_reasons();

// The active reasons of DEVICE (ClocksEventReasonsActive); nullopt when the GPU does not report them.
std::optional<std::vector<ThrottleReason>> active_throttle_reasons(const core::DeviceSnapshot& device);

// The text marker's labels, without repeats ("thermal" once for software and hardware thermal
// slowdown), and the worst severity among them. Empty: not throttled for a reason that matters.
struct ThrottleMarker {
  std::vector<std::string> labels;
  terminal::Severity severity = terminal::Severity::Ok;
  std::string joined(std::string_view separator) const;
};
ThrottleMarker throttle_marker(const core::DeviceSnapshot& device);

}  // namespace gpuwatch::status
