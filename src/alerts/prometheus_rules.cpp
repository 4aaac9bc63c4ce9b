// prometheus_rules_yaml(): the Prometheus rules file from the rules' `promql` twins
// (deploy/prometheus/gpuwatch-rules.yaml is this function's output for the built-in set).
#include <algorithm>
#include <cctype>
#include <set>

#include "alerts/builtin_rules.hpp"

namespace gpuwatch::alerts {
namespace {

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// A YAML plain scalar when nothing in S could be read otherwise, else double-quoted.
std::string scalar(std::string_view s) {
  static const std::set<std::string_view> kSpecial = {"", "true", "false", "yes", "no", "null", "on", "off", "~"};
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool risky = kSpecial.count(lower) > 0 || std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos ||
                     s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos ||
                     s.back() == ':' || s.back() == ' ' || s.front() == ' ' || s.find('\n') != std::string_view::npos;
  return risky ? double_quoted(s) : std::string(s);
}

void block(std::string& out, std::string_view key, std::string_view text, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (text.find('\n') == std::string_view::npos) {
    out += pad + std::string(key) + ": " + scalar(text) + "\n";
    return;
  }
  out += pad + std::string(key) + ": |-\n";
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t nl = std::min(text.find('\n', i), text.size());
    out += pad + "  " + std::string(text.substr(i, nl - i)) + "\n";
    i = nl + 1;
  }
}

void comment(std::string& out, std::string_view text, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t nl = std::min(text.find('\n', i), text.size());
    const std::string_view line = text.substr(i, nl - i);
    out += pad + (line.empty() ? "#" : "# " + std::string(line)) + "\n";
    i = nl + 1;
  }
}

void render_rule(std::string& out, const Rule& rule) {
  if (!rule.comment.empty()) comment(out, rule.comment, 6);
  out += "      - alert: " + rule.alert + "\n";
  block(out, "expr", rule.promql, 8);
  if (rule.for_duration.count() > 0) out += "        for: " + format_duration(rule.for_duration) + "\n";
  if (rule.keep_firing_for.count() > 0) out += "        keep_firing_for: " + format_duration(rule.keep_firing_for) + "\n";
  Labels labels = rule.labels;
  // A findings rule's severity comes from the series (gpuwatch_finding's severity label).
  if (rule.severity) labels["severity"] = to_string(*rule.severity);
  if (!labels.empty()) {
    out += "        labels:\n";
    // severity first, as people read it; then the rule's labels by name
    if (auto it = labels.find("severity"); it != labels.end()) out += "          severity: " + scalar(it->second) + "\n";
    for (const auto& [k, v] : labels)
      if (k != "severity") out += "          " + k + ": " + scalar(v) + "\n";
  }
  if (!rule.annotations.empty()) {
    out += "        annotations:\n";
    for (const auto& [k, t] : rule.annotations) out += "          " + k + ": " + double_quoted(t.text()) + "\n";
  }
}

}  // namespace

std::string prometheus_rules_yaml(const RuleSet& rules) {
  std::string out =
      "# Alert rules for gpuwatch serve (native gpuwatch_* metrics).\n"
      "# GENERATED from src/alerts/builtin_rules.yaml (the one rule set of both engines: gpuwatch's\n"
      "# local engine and Prometheus; docs/alerts.md). Do not edit here: edit that file, then run\n"
      "#   GPUWATCH_UPDATE_RULES=1 build/tests/unit_tests --gtest_filter='AlertsPrometheusRules.*'\n"
      "# which rewrites this file (the same test fails while it differs).\n"
      "# Check:  promtool check rules deploy/prometheus/gpuwatch-rules.yaml\n"
      "# Tests:  promtool test rules deploy/prometheus/tests/gpuwatch-rules.test.yaml\n"
      "# The exporter's job is assumed to be named \"gpuwatch\" (see prometheus.yml here).\n"
      "groups:\n";
  std::vector<std::string> groups;
  for (const auto& r : rules.rules)
    if (r.prometheus && std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) out += "\n";
    out += "  - name: " + scalar(groups[g]) + "\n    rules:\n";
    bool first = true;
    for (const auto& r : rules.rules) {
      if (!r.prometheus || r.group != groups[g]) continue;
      if (!first) out += "\n";
      first = false;
      render_rule(out, r);
    }
  }
  return out;
}

}  // namespace gpuwatch::alerts
