#pragma once
// Snapshot -> dmon rows (pure): which fields each dmon column reads from the field
// table, and the conversion from base units to dmon's display units.
#include <chrono>
#include <vector>

#include "dmon/format.hpp"
#include "core/field.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::dmon {

// pviol/tviol are rates of counters, so the first row needs an earlier reading: dmon takes one
// this long before its first row when a violation column is selected (nvidia-smi prints
// numbers there on the first row too, never "-").
inline constexpr std::chrono::milliseconds kFirstViolationWindow{200};
bool has_violation_columns(const std::vector<DmonColumn>& columns);

// The fields the sampler must read for these columns.
std::vector<core::FieldId> dmon_fields(const std::vector<DmonColumn>& columns);

// One row per device in the snapshot. A lost or inaccessible GPU gets a row of "-".
// The violation columns (pviol: % of the interval throttled by the power cap; tviol:
// 1 if thermal slowdown happened in the interval) are rates of NVML's cumulative
// counters between PREVIOUS and this snapshot: "-" for the first sample.
std::vector<DmonRow> dmon_rows(const core::Snapshot& snapshot, const std::vector<DmonColumn>& columns,
                               const core::Snapshot* previous = nullptr);

}  // namespace gpuwatch::dmon
