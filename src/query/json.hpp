#pragma once
// --format=json / jsonl for `gpuwatch query`: one object per CSV row, keys from the
// field table (snake_case with unit suffixes), values numbers in base units, bools,
// strings for text, null when absent.
#include <nlohmann/json.hpp>
#include <vector>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::query {

nlohmann::ordered_json reading_to_json(const core::FieldInfo& info, const core::FieldReading& reading);
std::vector<nlohmann::ordered_json> gpu_json_rows(const core::Snapshot& snapshot, const std::vector<core::FieldId>& fields);
std::vector<nlohmann::ordered_json> app_json_rows(const core::Snapshot& snapshot, const std::vector<core::AppFieldId>& fields);

}  // namespace gpuwatch::query
