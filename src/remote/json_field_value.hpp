#pragma once
// A value of serve's JSON API read back as a field value, the one decoding of both things
// `top --connect` reads: a GPU of /api/v1/snapshot (remote_node.cpp) and a `sample` event's
// history columns (remote_events.cpp).
#include <nlohmann/json_fwd.hpp>

#include <optional>

#include "core/field.hpp"

namespace gpuwatch::remote {

enum class JsonText { kept, dropped };  // a string: a field value, or none (a numeric column)

// A bool, an integer (an unsigned one stays unsigned), a double, and a string when TEXT is kept;
// nullopt for null or anything else: absent, never 0.
std::optional<core::FieldValue> field_value_of_json(const nlohmann::json& v, JsonText text);

}  // namespace gpuwatch::remote
