#include "alerts/node_state.hpp"

namespace gpuwatch::alerts {
namespace {

// NVML return codes (nvml.h): NVML_ERROR_UNINITIALIZED, NVML_ERROR_DRIVER_NOT_LOADED,
// NVML_ERROR_LIB_RM_VERSION_MISMATCH.
constexpr int kUninitialized = 1, kDriverNotLoaded = 9, kRmVersionMismatch = 18;

}  // namespace

bool driver_gone(const core::Snapshot& snapshot) {
  if (snapshot.devices.empty()) return false;
  for (const auto& device : snapshot.devices) {
    const int code = device.state == core::DeviceState::Ok ? 0 : device.nvml_code;
    if (code != kUninitialized && code != kDriverNotLoaded && code != kRmVersionMismatch) return false;
  }
  return true;
}

}  // namespace gpuwatch::alerts
