#pragma once
// Reads the fields of one core::Source from one device, converting NVML units to
// the core's base units (the only place where mW, MHz, %, ns... are converted).
#include <span>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// NVML return code -> field status (NOT_SUPPORTED/DEPRECATED -> NotSupported,
// NO_PERMISSION -> NoPermission, FUNCTION_NOT_FOUND -> FunctionMissing, else Failed).
core::FieldStatus status_from_nvml(nvmlReturn_t code);
// NVML return code -> the vendor-neutral error (its reason, and the code kept for the text):
// the only place NVML's codes become core::ErrorReason.
core::ReadError error_from_nvml(nvmlReturn_t code);

// Calls the NVML function(s) behind `source` once and writes a reading for every
// field in `fields` (all of which have that source) into device.readings.
// Returns the worst NVML code seen (NVML_ERROR_GPU_IS_LOST makes the caller stop).
nvmlReturn_t read_source(const NvmlApi& api, nvmlDevice_t dev, core::Source source,
                         std::span<const core::FieldId> fields, core::DeviceSnapshot& device);

// Compute + graphics processes (merged by pid, "C+G") and their names. With
// utilization_since_us (not null) also per-process utilization from samples newer than
// *utilization_since_us (CPU us; 0 = all the driver holds), which is then advanced to
// the newest sample used, so each call reports the period since the previous one.
// Sets device.processes_status.
nvmlReturn_t read_processes(const NvmlApi& api, nvmlDevice_t dev, unsigned long long* utilization_since_us,
                            core::DeviceSnapshot& device);

}  // namespace gpuwatch::nvml
