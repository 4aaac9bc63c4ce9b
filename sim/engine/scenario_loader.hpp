#pragma once
// Reading scenarios: built-in names (sim/scenarios/*.yaml, embedded) or YAML files.
// Errors name the file, the line and the key.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

// NAME_OR_PATH: a built-in scenario name or the path of a YAML file.
core::Result<Scenario> load_scenario(std::string_view name_or_path);

// Parses scenario YAML. LABEL names the source in messages (a path, or
// "builtin:NAME"); BASE_DIR resolves relative replay file paths.
core::Result<Scenario> parse_scenario(std::string_view yaml_text, std::string_view label, std::string_view base_dir);

std::vector<std::string> builtin_scenario_names();
bool is_builtin_scenario(std::string_view name);

}  // namespace gpuwatch::sim
