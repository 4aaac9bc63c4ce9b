#include "remote/json_field_value.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace gpuwatch::remote {

std::optional<core::FieldValue> field_value_of_json(const nlohmann::json& v, JsonText text) {
  if (v.is_boolean()) return core::FieldValue(v.get<bool>());
  if (v.is_number_unsigned()) return core::FieldValue(v.get<std::uint64_t>());
  if (v.is_number_integer()) return core::FieldValue(v.get<std::int64_t>());
  if (v.is_number_float()) return core::FieldValue(v.get<double>());
  if (v.is_string() && text == JsonText::kept) return core::FieldValue(v.get<std::string>());
  return std::nullopt;
}

}  // namespace gpuwatch::remote
