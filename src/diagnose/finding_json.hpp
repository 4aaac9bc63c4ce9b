#pragma once
// The JSON form of findings (docs/diagnose.md has the schema): snake_case keys, times in
// Unix seconds, evidence as named numbers, impact null when it cannot be estimated.
#include <nlohmann/json.hpp>
#include <span>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

nlohmann::json to_json(const Finding& finding);
// {"findings": [...]}
nlohmann::json findings_json(std::span<const Finding> findings);

}  // namespace gpuwatch::diagnose
