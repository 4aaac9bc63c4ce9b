#pragma once
// `gpuwatch status --json` / `--jsonl`: one object per sample. Keys are the field
// table's JSON keys (snake_case, base-unit suffix: memory_used_bytes, power_draw_w,
// utilization_gpu_ratio, temperature_gpu_c); values are numbers (or strings for
// names and ids); an absent value is null, never 0. Pure.
#include <nlohmann/json.hpp>

#include "status/view.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::status {

nlohmann::ordered_json status_json(const core::Snapshot& snapshot, const StatusContext& context);

// The JSON value of one reading: number, string, bool, or null when absent.
nlohmann::ordered_json reading_json(const core::FieldReading& reading);

}  // namespace gpuwatch::status
