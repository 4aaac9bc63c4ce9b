#include "core/snapshot.hpp"

#include <fmt/format.h>

namespace gpuwatch::core {

const char* to_string(ProcessType type) {
  switch (type) {
    case ProcessType::Compute: return "C";
    case ProcessType::Graphics: return "G";
    case ProcessType::ComputeAndGraphics: return "C+G";
  }
  return "?";
}

const char* to_string(DeviceState state) {
  switch (state) {
    case DeviceState::Ok: return "ok";
    case DeviceState::Lost: return "lost";
    case DeviceState::Inaccessible: return "inaccessible";
    case DeviceState::TimedOut: return "timed_out";
  }
  return "unknown";
}

std::string Snapshot::error_string(int code) const {
  auto it = error_strings.find(code);
  if (it != error_strings.end()) return it->second;
  return fmt::format("Unknown Error ({})", code);
}

bool Snapshot::any_device_failed() const {
  for (const auto& device : devices) {
    if (device.state != DeviceState::Ok) return true;
  }
  return false;
}

bool Snapshot::names_vendors() const {
  for (const auto& device : devices) {
    if (device.vendor != Vendor::Nvidia) return true;
  }
  return false;
}

}  // namespace gpuwatch::core
