#include "alerts/rule_parser.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <yaml-cpp/yaml.h>

#include "core/did_you_mean.hpp"
#include "diagnose/kinds.hpp"

namespace gpuwatch::alerts {
namespace {

struct Bad {
  std::string message;
};

class RuleReader {
 public:
  explicit RuleReader(std::string_view source) : source_(source) {}

  RuleSet read(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::ParserException& e) {
      throw Bad{source_ + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg};
    }
    RuleSet set;
    set.source = source_;
    if (!root || root.IsNull()) throw Bad{source_ + ": the file is empty: it needs a 'rules:' list (docs/alerts.md)"};
    if (!root.IsMap()) throw Bad{at(root) + "the file must be a map with a 'rules:' list (docs/alerts.md)"};
    if (root["groups"] && !root["rules"]) {
      for (const auto& kv : root)
        if (kv.first.Scalar() == "groups")
          throw Bad{at(kv.first) + "'groups': this is a Prometheus rules file; gpuwatch reads its own format, "
                                   "a 'rules:' list (docs/alerts.md)"};
    }
    check_keys(root, {"rules"}, "the file");
    const YAML::Node rules = root["rules"];
    if (!rules) throw Bad{at(root) + "'rules': missing (the list of rules)"};
    if (!rules.IsSequence()) throw Bad{at(rules) + "'rules': expected a list of rules"};
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& node : rules) {
      Rule rule = read_rule(node);
      const std::string severity = rule.severity ? to_string(*rule.severity) : "(from the finding)";
      if (!seen.emplace(rule.alert, severity).second)
        throw Bad{at(node["alert"]) + "'alert': " + rule.alert + " with severity " + severity +
                  " is defined twice (one rule per alert name and severity)"};
      set.rules.push_back(std::move(rule));
    }
    return set;
  }

 private:
  std::string at(const YAML::Node& n, int extra_lines = 0) const {
    return source_ + ":" + std::to_string(n.Mark().line + 1 + extra_lines) + ": ";
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what) const {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string hint = core::did_you_mean(key, allowed);
        // "expression", "expresion": a known key that starts the word is what was meant.
        for (const auto& a : allowed)
          if (hint.empty() && a.size() >= 3 && key.rfind(a, 0) == 0) hint = " Did you mean '" + a + "'?";
        throw Bad{at(kv.first) + "'" + key + "': unknown key in " + what + "." +
                  (hint.empty() ? " Known keys: " + join(allowed) : hint)};
      }
      if (!seen.insert(key).second) throw Bad{at(kv.first) + "'" + key + "': given twice in " + what};
    }
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) throw Bad{at(n) + "'" + key + "': expected a single value"};
    return n.Scalar();
  }

  Duration duration(const YAML::Node& n, const std::string& key) const {
    const std::string text = scalar(n, key);
    auto d = parse_duration(text);
    if (!d) throw Bad{at(n) + "'" + key + "': '" + text + "' is not a duration (" + kDurationHint + ")"};
    return *d;
  }

  Expression expression(const YAML::Node& n, const std::string& key, Scope scope) const {
    const std::string text = scalar(n, key);
    auto parsed = Expression::parse(text, scope);
    if (auto* e = std::get_if<Expression>(&parsed)) return std::move(*e);
    const auto& err = std::get<Expression::ParseError>(parsed);
    // The line of the error inside a multi-line (block) expression, and its column there.
    const std::size_t offset = std::min(err.column - 1, text.size());
    const auto newlines = std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n');
    const std::size_t line_start = newlines == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
    const int extra = newlines == 0 && text.find('\n') == std::string::npos ? 0 : static_cast<int>(newlines) + 1;
    throw Bad{at(n, extra) + "'" + key + "', column " + std::to_string(offset - line_start + 1) + ": " + err.message};
  }

  Rule read_rule(const YAML::Node& node) {
    if (!node.IsMap()) throw Bad{at(node) + "each rule must be a map (alert:, expr:, ...)"};
    static const std::vector<std::string> kKeys = {"alert", "scope", "expr", "clear", "findings", "for",
                                                   "keep_firing_for", "repeat", "severity", "labels",
                                                   "annotations", "promql", "engines", "group", "comment", "covers"};
    Rule rule;
    rule.source = source_ + ":" + std::to_string(node.Mark().line + 1);
    const YAML::Node name = node["alert"];
    if (!name) throw Bad{at(node) + "'alert': missing (every rule needs a name, e.g. alert: GpuTemperatureHigh)"};
    rule.alert = scalar(name, "alert");
    static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
    if (!std::regex_match(rule.alert, kName))
      throw Bad{at(name) + "'alert': '" + rule.alert + "' is not a valid alert name (letters, digits, _)"};
    check_keys(node, kKeys, "rule " + rule.alert);

    if (const auto n = node["scope"]) {
      const std::string s = scalar(n, "scope");
      if (s == "gpu") rule.scope = Scope::Gpu;
      else if (s == "node") rule.scope = Scope::Node;
      else throw Bad{at(n) + "'scope': '" + s + "' is not a scope (gpu or node)"};
    }
    if (const auto n = node["group"]) rule.group = scalar(n, "group");
    if (const auto n = node["comment"]) rule.comment = scalar(n, "comment");
    if (const auto n = node["expr"]) rule.expr = expression(n, "expr", rule.scope);
    if (const auto n = node["clear"]) {
      if (!rule.expr) throw Bad{at(n) + "'clear': only a rule with an 'expr' can have a clear condition"};
      rule.clear = expression(n, "clear", rule.scope);
    }
    if (const auto n = node["findings"]) read_findings(n, rule);
    if (rule.expr && rule.is_findings_rule())
      throw Bad{at(node["findings"]) + "'findings': a rule has either 'expr' or 'findings', not both"};
    if (const auto n = node["covers"]) read_covers(n, rule);
    if (const auto n = node["for"]) rule.for_duration = duration(n, "for");
    if (const auto n = node["keep_firing_for"]) rule.keep_firing_for = duration(n, "keep_firing_for");
    if (const auto n = node["repeat"]) rule.repeat = duration(n, "repeat");
    if (const auto n = node["severity"]) {
      const std::string s = scalar(n, "severity");
      rule.severity = severity_from_string(s);
      if (!rule.severity)
        throw Bad{at(n) + "'severity': '" + s + "' is not a severity (info, warning or critical)." +
                  core::did_you_mean(s, {"info", "warning", "critical"})};
      if (rule.is_findings_rule())
        throw Bad{at(n) + "'severity': a findings rule takes each alert's severity from its finding; "
                          "use findings: {min_severity: ...}"};
    } else if (!rule.is_findings_rule()) {
      throw Bad{at(node) + "'severity': missing in rule " + rule.alert + " (info, warning or critical)"};
    }
    if (const auto n = node["labels"]) read_labels(n, rule);
    if (const auto n = node["promql"]) rule.promql = scalar(n, "promql");
    read_engines(node, rule);
    if (const auto n = node["annotations"]) read_annotations(n, rule);
    return rule;
  }

  void read_findings(const YAML::Node& n, Rule& rule) const {
    if (!n.IsMap()) throw Bad{at(n) + "'findings': expected a map, e.g. findings: {min_severity: warning}"};
    check_keys(n, {"min_severity"}, "findings");
    rule.findings_min_severity = Severity::Warning;
    if (const auto m = n["min_severity"]) {
      const std::string s = scalar(m, "min_severity");
      rule.findings_min_severity = severity_from_string(s);
      if (!rule.findings_min_severity)
        throw Bad{at(m) + "'min_severity': '" + s + "' is not a severity (info, warning or critical)"};
    }
    if (rule.scope != Scope::Gpu) throw Bad{at(n) + "'findings': findings are per GPU: the rule needs scope: gpu"};
  }

  void read_covers(const YAML::Node& n, Rule& rule) const {
    if (!n.IsSequence()) throw Bad{at(n) + "'covers': expected a list of finding kinds, e.g. covers: [memory_leak]"};
    if (!rule.expr || rule.scope != Scope::Gpu)
      throw Bad{at(n) + "'covers': only a per-GPU rule with an 'expr' can stand for findings"};
    std::vector<std::string> kinds;
    for (const auto& k : diagnose::kind_table()) kinds.emplace_back(k.id);
    for (const auto& e : n) {
      const std::string kind = scalar(e, "covers");
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        throw Bad{at(e) + "'covers': '" + kind + "' is not a finding kind (docs/diagnose.md)." + core::did_you_mean(kind, kinds)};
      rule.covers.push_back(kind);
    }
  }

  void read_labels(const YAML::Node& n, Rule& rule) const {
    if (!n.IsMap()) throw Bad{at(n) + "'labels': expected a map of names to values, e.g. labels: {team: ml}"};
    static const std::regex kLabel("[A-Za-z_][A-Za-z0-9_]*");
    static const std::set<std::string> kReserved = {"alertname", "severity", "host", "gpu", "uuid", "kind", "xid", "instance", "job"};
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (!std::regex_match(key, kLabel)) throw Bad{at(kv.first) + "'labels': '" + key + "' is not a valid label name"};
      if (kReserved.count(key))
        throw Bad{at(kv.first) + "'labels': '" + key + "' is set by gpuwatch (alertname, severity, host, gpu, uuid, kind, xid, instance, job)"};
      rule.labels[key] = scalar(kv.second, "labels." + key);
    }
  }

  void read_engines(const YAML::Node& node, Rule& rule) const {
    rule.local = rule.expr || rule.is_findings_rule();
    rule.prometheus = !rule.promql.empty();
    const auto n = node["engines"];
    if (n) {
      if (!n.IsSequence() || n.size() == 0)
        throw Bad{at(n) + "'engines': expected a list: [local], [prometheus] or [local, prometheus]"};
      rule.local = rule.prometheus = false;
      for (const auto& e : n) {
        const std::string s = scalar(e, "engines");
        if (s == "local") rule.local = true;
        else if (s == "prometheus") rule.prometheus = true;
        else throw Bad{at(e) + "'engines': '" + s + "' is not an engine (local, prometheus)" + core::did_you_mean(s, {"local", "prometheus"})};
      }
    }
    const YAML::Node where = n ? n : node;
    if (rule.local && !rule.expr && !rule.is_findings_rule())
      throw Bad{at(where) + "'expr': missing in rule " + rule.alert + " (the local engine needs a condition; "
                            "a Prometheus-only rule says engines: [prometheus])"};
    if (rule.prometheus && rule.promql.empty())
      throw Bad{at(where) + "'promql': missing in rule " + rule.alert + " (engines names prometheus)"};
    if (!rule.local && !rule.prometheus)
      throw Bad{at(where) + "'expr': missing in rule " + rule.alert + " (the local engine needs a condition; "
                            "a Prometheus-only rule says engines: [prometheus])"};
  }

  void read_annotations(const YAML::Node& n, Rule& rule) const {
    if (!n.IsMap()) throw Bad{at(n) + "'annotations': expected a map, e.g. annotations: {summary: \"...\"}"};
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const std::string text = scalar(kv.second, "annotations." + key);
      auto parsed = Template::parse(text);
      if (auto* err = std::get_if<Template::ParseError>(&parsed))
        throw Bad{at(kv.second) + "'annotations." + key + "', column " + std::to_string(err->column) + ": " + err->message};
      auto& t = std::get<Template>(parsed);
      if (t.uses_process() && rule.prometheus)
        throw Bad{at(kv.second) + "'annotations." + key + "': {{ $process }} is known to the local engine only; "
                                   "a rule with a Prometheus twin cannot use it"};
      if (t.uses_raw() && rule.prometheus)
        throw Bad{at(kv.second) + "'annotations." + key + "': '| raw' is known to the local engine only; "
                                   "a rule with a Prometheus twin cannot use it"};
      rule.annotations.emplace_back(key, std::move(t));
    }
  }

  std::string source_;
};

}  // namespace

core::Result<RuleSet> parse_rules(std::string_view yaml_text, std::string_view source_name) {
  try {
    return RuleReader(source_name).read(yaml_text);
  } catch (const Bad& b) {
    return core::make_error(b.message);
  } catch (const YAML::Exception& e) {
    return core::make_error(std::string(source_name) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace gpuwatch::alerts
