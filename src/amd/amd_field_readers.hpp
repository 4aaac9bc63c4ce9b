#pragma once
// Reads the fields of one core::Source read group from one amdgpu card's files, with NVML's
// meanings, in the core's base units (m°C, µW, µJ, MHz and percents are converted here). What
// the files cannot give is absent (NotSupported: "[N/A]"), never 0; a file that is missing or
// unreadable fails only the fields it serves.
#include <span>

#include "amd/amd_card.hpp"
#include "core/field_table.hpp"
#include "core/read_error.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::amd {

// The Index read group answers DEVICE.index (the global index the sampler set). Returns the
// worst error (GpuLost when the card's device folder has gone).
core::ReadError read_card_source(const AmdCard& card, core::Source source,
                                 std::span<const core::FieldId> fields, core::DeviceSnapshot& device);

}  // namespace gpuwatch::amd
