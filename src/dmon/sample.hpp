#pragma once
// Snapshot -> dmon rows (pure): which fields each dmon column reads from the field
// table, and the conversion from base units to dmon's display units.
#include <vector>

#include "dmon/format.hpp"
#include "core/field.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::dmon {

// The fields the sampler must read for these columns.
std::vector<core::FieldId> dmon_fields(const std::vector<DmonColumn>& columns);

// One row per device in the snapshot. A lost or inaccessible GPU gets a row of "-".
// The violation columns (pviol: % of the interval throttled by the power cap; tviol:
// 1 if thermal slowdown happened in the interval) are rates of NVML's cumulative
// counters between PREVIOUS and this snapshot: "-" for the first sample.
std::vector<DmonRow> dmon_rows(const core::Snapshot& snapshot, const std::vector<DmonColumn>& columns,
                               const core::Snapshot* previous = nullptr);

}  // namespace gpuwatch::dmon
