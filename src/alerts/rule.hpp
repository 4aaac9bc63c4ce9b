#pragma once
// An alert rule and a rule set, as read from a rules file (rule_parser.hpp) or the built-in
// set (builtin_rules.yaml). The format is in docs/alerts.md.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alerts/alert.hpp"
#include "alerts/duration.hpp"
#include "alerts/expression.hpp"
#include "alerts/template.hpp"

namespace gpuwatch::alerts {

inline constexpr Duration kDefaultRepeat = std::chrono::hours(4);

struct Rule {
  std::string alert;                  // the alert name (label alertname)
  std::string group = "gpuwatch";     // the Prometheus rule group it is rendered into
  std::string comment;                // written above the rule in the Prometheus file
  Scope scope = Scope::Gpu;
  std::optional<Expression> expr;     // the condition (absent: findings rule, or Prometheus only)
  std::optional<Expression> clear;    // hysteresis: once firing, resolves only when this holds
  // Findings as alerts: one alert per active finding (one problem: its kind and GPUs) at this
  // severity or worse; the alert's severity is the finding's, its summary and description the
  // finding's own words (the rule's templates are the Prometheus twin's text).
  std::optional<Severity> findings_min_severity;
  // One row per problem (issue 23): the finding kinds ("memory_leak") this expr rule's alert stands
  // for. A finding of one of them on one GPU gets no findings alert while this rule is pending or
  // firing on that GPU, and this rule's alert then says the finding's words; a finding over
  // several GPUs (a job's hang) is the row instead, and this rule stays quiet on its GPUs.
  std::vector<std::string> covers;
  Duration for_duration{0};
  Duration keep_firing_for{0};
  Duration repeat = kDefaultRepeat;   // 0: never re-notify
  std::optional<Severity> severity;   // absent only on findings rules (the finding's severity)
  Labels labels;                      // extra labels
  std::vector<std::pair<std::string, Template>> annotations;  // in file order
  std::string promql;                 // the Prometheus twin ("" when local only)
  bool local = true;                  // engines: the local engine evaluates it
  bool prometheus = false;            // engines: rendered into the Prometheus rules file
  std::string source;                 // "rules.yaml:12": where the rule starts

  bool is_findings_rule() const { return findings_min_severity.has_value(); }
};

struct RuleSet {
  std::string source;       // file name, or "built-in"
  std::vector<Rule> rules;  // in file order
};

}  // namespace gpuwatch::alerts
