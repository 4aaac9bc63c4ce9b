#pragma once
// nvidia-smi's text for a reading (the cell of `--query-gpu --format=csv`), pure.
#include <chrono>
#include <string>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::core {

struct CsvStyle {
  bool units = true;  // false: --format=csv,nounits (no unit suffix on values)
};

// Formats a value present in `reading` per `display`; the unit suffix is added when
// style.units. Absent readings: "[N/A]" (or bare "N/A" for NaText::Plain) for
// NotSupported/FunctionMissing/NotApplicable/NotRead, "[<the vendor's error text>]" for other reasons.
std::string format_cell(const FieldInfo& info, const FieldReading& reading, const Snapshot& snapshot,
                        CsvStyle style = {});
std::string format_value(Display display, const FieldValue& value, bool units);
std::string_view display_unit_suffix(Display display);  // "MiB", "W", "%"... or ""

// "2026/07/14 08:12:53.353" in local time.
std::string format_timestamp(std::chrono::system_clock::time_point t);

}  // namespace gpuwatch::core
