#pragma once
// Intel's codes (core::ReadError::vendor_code): a file's errno as core::kIntelCodeBase + errno,
// a Level Zero failure as its ze_result_t (0x70000000 and up, above the base already). The only
// place they become core::ErrorReason and texts.
#include <level_zero/ze_api.h>

#include <string>

#include "core/field.hpp"
#include "core/read_error.hpp"

namespace gpuwatch::intel {

core::ReadError error_from_errno(int error);  // ENOENT -> NotSupported, EACCES/EPERM -> NoPermission,
                                              // ENODEV/ENXIO -> GpuLost, else Other
core::ReadError error_from_ze(ze_result_t result);
core::FieldStatus status_of(core::ReadError error);  // NotSupported, NoPermission, or Failed
std::string intel_error_text(int vendor_code);        // strerror, or the ze_result_t's name
// The error a reason is given (the sampler's made-up errors): an errno's code.
core::ReadError intel_error_of(core::ErrorReason reason);

}  // namespace gpuwatch::intel
