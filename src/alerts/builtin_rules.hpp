#pragma once
// The built-in rule set and its Prometheus rendering. builtin_rules.yaml (embedded in the
// binary) is the single source of both: the local engine evaluates `expr`, and
// deploy/prometheus/gpuwatch-rules.yaml is exactly prometheus_rules_yaml(builtin_rules())
// (a unit test compares them; `gpuwatch_alert_rules_tool` regenerates the file).
#include <string>
#include <string_view>

#include "alerts/rule.hpp"

namespace gpuwatch::alerts {

// Parsed once; a broken embedded file is a programming error (std::logic_error).
const RuleSet& builtin_rules_ref();
RuleSet builtin_rules();
std::string_view builtin_rules_yaml();  // the embedded file's text

// The Prometheus rules file (groups by each rule's `group`, in order of first appearance) of
// the rules that name the prometheus engine.
std::string prometheus_rules_yaml(const RuleSet& rules);

}  // namespace gpuwatch::alerts
