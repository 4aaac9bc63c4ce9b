#include "amd/amd_errors.hpp"

#include <cerrno>

#include <fmt/format.h>

namespace gpuwatch::amd {

core::ReadError error_from_errno(int err) {
  using R = core::ErrorReason;
  if (err == 0) return {};
  const R reason = [err] {
    switch (err) {
      case ENOENT:      // the attribute does not exist on this GPU / driver
      case EOPNOTSUPP:  // the driver has the file, the ASIC's firmware does not fill it
      case ENOSYS: return R::NotSupported;
      case EACCES: return R::NoPermission;
      case ENODEV:  // the device is gone (hot-unplugged, fell off the bus)
      case ENXIO: return R::GpuLost;
      case ETIMEDOUT: return R::Timeout;
      case ESRCH: return R::NotFound;
      default: return R::Other;  // EPERM (amdgpu while in reset), EIO, EBUSY...: retried next sample
    }
  }();
  return core::ReadError{reason, core::kAmdCodeBase + err};
}

core::FieldStatus status_of(core::ReadError error) {
  using R = core::ErrorReason;
  switch (error.reason) {
    case R::None: return core::FieldStatus::Ok;
    case R::NotSupported:
    case R::Deprecated: return core::FieldStatus::NotSupported;
    case R::NoPermission: return core::FieldStatus::NoPermission;
    case R::FunctionMissing: return core::FieldStatus::FunctionMissing;
    default: return core::FieldStatus::Failed;
  }
}

core::ReadError error_of_reason(core::ErrorReason reason) {
  using R = core::ErrorReason;
  switch (reason) {
    case R::None: return {};
    case R::NotSupported:
    case R::Deprecated:
    case R::FunctionMissing: return core::ReadError{reason, core::kAmdCodeBase + EOPNOTSUPP};
    case R::NoPermission: return core::ReadError{reason, core::kAmdCodeBase + EACCES};
    case R::GpuLost: return core::ReadError{reason, core::kAmdCodeBase + ENODEV};
    case R::Timeout: return core::ReadError{reason, core::kAmdCodeBase + ETIMEDOUT};
    case R::NotFound: return core::ReadError{reason, core::kAmdCodeBase + ESRCH};
    case R::Uninitialized:
    case R::DriverNotLoaded:
    case R::DriverMismatch: return core::ReadError{reason, core::kAmdCodeBase + ENXIO};
    case R::InsufficientSize: return core::ReadError{reason, core::kAmdCodeBase + EOVERFLOW};
    case R::Other: break;
  }
  return core::ReadError{R::Other, core::kAmdCodeBase + EIO};
}

std::string amd_error_text(core::ReadError error) {
  const int err = error.vendor_code - core::kAmdCodeBase;
  switch (err) {
    case 0: return "Success";
    case ENOENT: return "No such file";
    case EOPNOTSUPP: return "Not Supported";
    case ENOSYS: return "Not Supported";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENODEV: return "GPU is lost";
    case ENXIO: return "No such device";
    case ETIMEDOUT: return "Timeout";
    case ESRCH: return "Not Found";
    case EIO: return "I/O error";
    case EBUSY: return "Device busy";
    case EINVAL: return "Invalid argument";
    case EISDIR: return "Is a directory";
    case EOVERFLOW: return "Insufficient Size";
    case EBADMSG: return "Unexpected file contents";
    default: return fmt::format("Unknown Error (errno {})", err);
  }
}

}  // namespace gpuwatch::amd
