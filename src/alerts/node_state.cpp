#include "alerts/node_state.hpp"

namespace gpuwatch::alerts {
namespace {

// The reasons that mean the driver itself is gone: not initialised, not loaded, or a library
// that no longer matches the kernel driver (an upgrade without a reboot).
bool driver_reason(core::ErrorReason reason) {
  return reason == core::ErrorReason::Uninitialized || reason == core::ErrorReason::DriverNotLoaded ||
         reason == core::ErrorReason::DriverMismatch;
}

}  // namespace

bool driver_gone(const core::Snapshot& snapshot) {
  if (snapshot.devices.empty()) return false;
  for (const auto& device : snapshot.devices) {
    if (device.state == core::DeviceState::Ok || !driver_reason(device.error.reason)) return false;
  }
  return true;
}

}  // namespace gpuwatch::alerts
