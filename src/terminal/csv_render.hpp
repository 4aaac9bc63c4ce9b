#pragma once
// nvidia-smi's CSV for --query-gpu and --query-compute-apps, pure functions over a
// Snapshot: header "a, b [MiB]", cells joined by ", ".
#include <string>
#include <vector>

#include "core/field_format.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::terminal {

std::string gpu_csv_header(const std::vector<core::FieldId>& fields);
// One line per device (no trailing newline). A lost/inaccessible device still gets
// its row: its cells carry the device's error.
std::vector<std::string> gpu_csv_rows(const core::Snapshot& snapshot, const std::vector<core::FieldId>& fields,
                                      core::CsvStyle style);

std::string app_csv_header(const std::vector<core::AppFieldId>& fields);
// One line per compute process (compute or compute+graphics) of every device.
std::vector<std::string> app_csv_rows(const core::Snapshot& snapshot, const std::vector<core::AppFieldId>& fields,
                                      core::CsvStyle style);

// The cell text of one compute-app field.
std::string app_cell(const core::Snapshot& snapshot, const core::DeviceSnapshot& device,
                     const core::ProcessSample& process, core::AppFieldId field, core::CsvStyle style);

}  // namespace gpuwatch::terminal
