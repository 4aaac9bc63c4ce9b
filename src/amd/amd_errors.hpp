#pragma once
// AMD's backend codes: core::kAmdCodeBase + errno of the file read that failed (the kernel's
// own answer: ENOENT for an attribute this GPU lacks, EOPNOTSUPP for one its firmware does not
// fill, ENODEV for a GPU gone from the bus...). The only place those become core::ReadError.
#include <string>

#include "core/field.hpp"
#include "core/read_error.hpp"

namespace gpuwatch::amd {

// errno -> the vendor-neutral error (reason + kAmdCodeBase + errno). 0 -> no error.
core::ReadError error_from_errno(int err);
// The field status an error leaves a reading in (NotSupported is cached by the sampler).
core::FieldStatus status_of(core::ReadError error);
// The error this backend gives a reason it makes up (error_of).
core::ReadError error_of_reason(core::ErrorReason reason);
// "No such file", "Permission denied", "GPU is lost", "Not Supported"...
std::string amd_error_text(core::ReadError error);

}  // namespace gpuwatch::amd
