#pragma once
// The JSON form of alerts and alert events (docs/alerts.md has the schema): snake_case keys,
// times in Unix seconds (null when not reached), labels and annotations as objects. The store
// keeps alerts in this form, so from_json reads back what to_json wrote.
#include <nlohmann/json.hpp>
#include <span>

#include "alerts/alert.hpp"
#include "core/result.hpp"

namespace gpuwatch::alerts {

nlohmann::json to_json(const Alert& alert);
nlohmann::json to_json(const AlertEvent& event);
// {"alerts": [...]}
nlohmann::json alerts_json(std::span<const Alert> alerts);
// The inverse of to_json(Alert); an error names the key that is missing or malformed.
core::Result<Alert> alert_from_json(const nlohmann::json& json);

double unix_seconds(TimePoint t);
TimePoint from_unix_seconds(double seconds);

}  // namespace gpuwatch::alerts
