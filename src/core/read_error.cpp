#include "core/read_error.hpp"

namespace gpuwatch::core {

const char* to_string(Vendor vendor) {
  switch (vendor) {
    case Vendor::Nvidia: return "nvidia";
    case Vendor::Amd: return "amd";
    case Vendor::Intel: return "intel";
  }
  return "unknown";
}

std::optional<Vendor> vendor_from_string(std::string_view text) {
  for (Vendor v : {Vendor::Nvidia, Vendor::Amd, Vendor::Intel}) {
    if (text == to_string(v)) return v;
  }
  return std::nullopt;
}

const char* to_string(ErrorReason reason) {
  switch (reason) {
    case ErrorReason::None: return "none";
    case ErrorReason::NotSupported: return "not_supported";
    case ErrorReason::Deprecated: return "deprecated";
    case ErrorReason::NoPermission: return "no_permission";
    case ErrorReason::FunctionMissing: return "function_missing";
    case ErrorReason::GpuLost: return "gpu_lost";
    case ErrorReason::Timeout: return "timeout";
    case ErrorReason::NotFound: return "not_found";
    case ErrorReason::Uninitialized: return "uninitialized";
    case ErrorReason::DriverNotLoaded: return "driver_not_loaded";
    case ErrorReason::DriverMismatch: return "driver_mismatch";
    case ErrorReason::InsufficientSize: return "insufficient_size";
    case ErrorReason::Other: return "other";
  }
  return "unknown";
}

Vendor vendor_of_code(int vendor_code) {
  if (vendor_code >= kIntelCodeBase || vendor_code < 0) return Vendor::Intel;
  if (vendor_code >= kAmdCodeBase) return Vendor::Amd;
  return Vendor::Nvidia;
}

}  // namespace gpuwatch::core
