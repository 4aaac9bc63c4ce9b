#pragma once
// Reads a rules file (YAML, docs/alerts.md). Every problem is an error that names the file,
// the line, the key and what is wrong, e.g.
//   rules.yaml:12: 'for': '5 minutes' is not a duration (use 30s, 5m, 1h)
//   rules.yaml:7: 'expr', column 1: unknown field 'temprature.gpu'. Did you mean 'temperature.gpu'?
#include <string_view>

#include "alerts/rule.hpp"
#include "core/result.hpp"

namespace gpuwatch::alerts {

core::Result<RuleSet> parse_rules(std::string_view yaml_text, std::string_view source_name);

}  // namespace gpuwatch::alerts
