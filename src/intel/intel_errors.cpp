#include "intel/intel_errors.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpuwatch::intel {

core::ReadError error_from_errno(int error) {
  using R = core::ErrorReason;
  if (error == 0) return {};
  R reason = R::Other;
  switch (error) {
    case ENOENT: case ENOTSUP: case EINVAL: reason = R::NotSupported; break;
    case EACCES: case EPERM: reason = R::NoPermission; break;
    case ENODEV: case ENXIO: reason = R::GpuLost; break;
    case ETIMEDOUT: reason = R::Timeout; break;
    default: break;
  }
  return {reason, core::kIntelCodeBase + error};
}

core::ReadError error_from_ze(ze_result_t result) {
  using R = core::ErrorReason;
  R reason = R::Other;
  switch (result) {
    case ZE_RESULT_SUCCESS: return {};
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
    case ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION: reason = R::NotSupported; break;
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS: reason = R::NoPermission; break;
    case ZE_RESULT_ERROR_DEVICE_LOST: reason = R::GpuLost; break;
    case ZE_RESULT_ERROR_UNINITIALIZED: reason = R::Uninitialized; break;
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE: reason = R::DriverNotLoaded; break;
    case ZE_RESULT_ERROR_NOT_AVAILABLE: reason = R::NotFound; break;
    default: break;
  }
  return {reason, static_cast<int>(result)};
}

core::FieldStatus status_of(core::ReadError error) {
  using R = core::ErrorReason;
  switch (error.reason) {
    case R::None: return core::FieldStatus::Ok;
    case R::NotSupported: case R::Deprecated: return core::FieldStatus::NotSupported;
    case R::NoPermission: return core::FieldStatus::NoPermission;
    case R::FunctionMissing: return core::FieldStatus::FunctionMissing;
    default: return core::FieldStatus::Failed;
  }
}

std::string intel_error_text(int code) {
  switch (static_cast<ze_result_t>(code)) {
    case ZE_RESULT_ERROR_DEVICE_LOST: return "Level Zero: device lost";
    case ZE_RESULT_ERROR_UNINITIALIZED: return "Level Zero: not initialised";
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "Level Zero: unsupported feature";
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS: return "Level Zero: insufficient permissions";
    case ZE_RESULT_ERROR_NOT_AVAILABLE: return "Level Zero: not available";
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE: return "Level Zero: dependency unavailable";
    case ZE_RESULT_ERROR_UNKNOWN: return "Level Zero: unknown error";
    default: break;
  }
  if (code >= 0x70000000) return fmt::format("Level Zero error 0x{:x}", static_cast<unsigned>(code));
  if (code > core::kIntelCodeBase) return std::strerror(code - core::kIntelCodeBase);
  return fmt::format("Unknown Error ({})", code);
}

core::ReadError intel_error_of(core::ErrorReason reason) {
  using R = core::ErrorReason;
  switch (reason) {
    case R::None: return {};
    case R::NotSupported: case R::Deprecated: return {reason, core::kIntelCodeBase + ENOTSUP};
    case R::NoPermission: return {reason, core::kIntelCodeBase + EACCES};
    case R::FunctionMissing: return {reason, core::kIntelCodeBase + ENOSYS};
    case R::GpuLost: return {reason, core::kIntelCodeBase + ENODEV};
    case R::Timeout: return {reason, core::kIntelCodeBase + ETIMEDOUT};
    case R::NotFound: return {reason, core::kIntelCodeBase + ENOENT};
    default: return {reason, core::kIntelCodeBase + EIO};
  }
}

}  // namespace gpuwatch::intel
