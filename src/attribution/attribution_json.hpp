#pragma once
// An Attribution as JSON, the same keys in `status --json`, the JSON API and the dashboard:
// every key always present, null when not known (absent is not an empty string).
#include <nlohmann/json.hpp>

#include "attribution/attribution.hpp"

namespace gpuwatch::attribution {

nlohmann::ordered_json attribution_json(const Attribution& a);

}  // namespace gpuwatch::attribution
