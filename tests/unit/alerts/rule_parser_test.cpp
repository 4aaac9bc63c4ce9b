#include "alerts/rule_parser.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alerts {
namespace rule_parser_test {  // this test file's helpers (unity builds: no clash with another file's)

std::string error_of(const std::string& yaml) {
  auto r = parse_rules(yaml, "rules.yaml");
  return r ? "" : r.error().message;
}

TEST(AlertsRuleParser, ReadsEveryKey) {
  auto r = parse_rules(R"Y(rules:
  - alert: GpuTemperatureHigh
    scope: gpu
    expr: temperature.gpu > 85
    clear: temperature.gpu < 80
    for: 5m
    keep_firing_for: 30s
    repeat: 1h30m
    severity: critical
    labels: {team: ml}
    annotations:
      summary: "GPU {{ $labels.gpu }} at {{ $value }}"
    promql: gpuwatch_temperature_gpu_celsius > 85
    group: g1
  - alert: Local
    scope: node
    expr: sampler_age > 60
    severity: info
  - alert: PromOnly
    severity: warning
    promql: up == 0
    engines: [prometheus]
)Y", "rules.yaml");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->rules.size(), 3u);
  const Rule& a = r->rules[0];
  EXPECT_EQ(a.alert, "GpuTemperatureHigh");
  EXPECT_EQ(a.for_duration, std::chrono::minutes(5));
  EXPECT_EQ(a.keep_firing_for, std::chrono::seconds(30));
  EXPECT_EQ(a.repeat, std::chrono::minutes(90));
  EXPECT_EQ(a.severity, Severity::Critical);
  EXPECT_EQ(a.labels.at("team"), "ml");
  ASSERT_TRUE(a.clear);
  EXPECT_TRUE(a.local);
  EXPECT_TRUE(a.prometheus);
  EXPECT_EQ(a.group, "g1");
  EXPECT_EQ(a.source, "rules.yaml:2");
  EXPECT_EQ(a.annotations.at(0).first, "summary");
  EXPECT_EQ(r->rules[1].scope, Scope::Node);
  EXPECT_EQ(r->rules[1].repeat, std::chrono::hours(4));  // the default
  EXPECT_FALSE(r->rules[1].prometheus);
  EXPECT_FALSE(r->rules[2].local);
  EXPECT_FALSE(r->rules[2].expr);
}

TEST(AlertsRuleParser, ErrorsNameFileLineKeyAndProblem) {
  const std::string head = "rules:\n  - alert: X\n    severity: warning\n";
  EXPECT_EQ(error_of(head + "    expr: temperature.gpu > 85\n    for: 5 minutes\n"),
            "rules.yaml:5: 'for': '5 minutes' is not a duration (use 30s, 5m, 1h)");
  EXPECT_EQ(error_of(head + "    expresion: temperature.gpu > 85\n"),
            "rules.yaml:4: 'expresion': unknown key in rule X. Did you mean 'expr'?");
  EXPECT_EQ(error_of(head + "    expr: temprature.gpu > 85\n"),
            "rules.yaml:4: 'expr', column 1: unknown field 'temprature.gpu'. Did you mean 'temperature.gpu'?");
  EXPECT_EQ(error_of(head + "    expr: |\n      temperature.gpu > 85\n      and avgg(utilization.gpu, 5m) > 0\n"),
            "rules.yaml:6: 'expr', column 5: unknown function 'avgg'. Did you mean 'avg'?");
  EXPECT_EQ(error_of("rules:\n  - alert: X\n    severity: warn\n    expr: temperature.gpu > 85\n"),
            "rules.yaml:3: 'severity': 'warn' is not a severity (info, warning or critical). Did you mean 'warning'?");
  EXPECT_EQ(error_of("rules:\n  - {alert: X, severity: info, expr: stale == 1}\n  - {alert: X, severity: info, expr: lost == 1}\n"),
            "rules.yaml:3: 'alert': X with severity info is defined twice (one rule per alert name and severity)");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    annotations:\n      summary: \"GPU {{ $labels.gpu \"\n"),
            "rules.yaml:6: 'annotations.summary', column 5: '{{' without its '}}'");
  EXPECT_EQ(error_of("rules:\n  - alert: X\n    expr: lost == 1\n"), "rules.yaml:2: 'severity': missing in rule X (info, warning or critical)");
  EXPECT_EQ(error_of(head), "rules.yaml:2: 'expr': missing in rule X (the local engine needs a condition; a Prometheus-only rule says engines: [prometheus])");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    engines: [prometheus]\n"), "rules.yaml:5: 'promql': missing in rule X (engines names prometheus)");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    scope: rack\n"), "rules.yaml:5: 'scope': 'rack' is not a scope (gpu or node)");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    labels: {gpu: \"1\"}\n"),
            "rules.yaml:5: 'labels': 'gpu' is set by gpuwatch (alertname, severity, host, gpu, uuid, kind, xid, instance, job)");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    promql: gpuwatch_gpu_lost == 1\n    annotations: {summary: \"{{ $process }}\"}\n"),
            "rules.yaml:6: 'annotations.summary': {{ $process }} is known to the local engine only; a rule with a Prometheus twin cannot use it");
  EXPECT_EQ(error_of(head + "    expr: lost == 1\n    promql: gpuwatch_gpu_lost == 1\n    annotations: {summary: \"{{ $labels.gpu | raw }}\"}\n"),
            "rules.yaml:6: 'annotations.summary': '| raw' is known to the local engine only; a rule with a Prometheus twin cannot use it");
  EXPECT_EQ(error_of("groups:\n  - name: x\n"),
            "rules.yaml:1: 'groups': this is a Prometheus rules file; gpuwatch reads its own format, a 'rules:' list (docs/alerts.md)");
  EXPECT_EQ(error_of("rules: [\n"), error_of("rules: [\n"));
  EXPECT_NE(error_of("rules: [\n").find("rules.yaml:"), std::string::npos);
  EXPECT_NE(error_of("rules: [\n").find("not valid YAML"), std::string::npos);
  EXPECT_EQ(error_of(""), "rules.yaml: the file is empty: it needs a 'rules:' list (docs/alerts.md)");
  EXPECT_EQ(error_of("rules:\n  - alert: X\n    findings: {min_severity: warning}\n    severity: critical\n"),
            "rules.yaml:4: 'severity': a findings rule takes each alert's severity from its finding; use findings: {min_severity: ...}");
  EXPECT_EQ(error_of("rules:\n  - alert: X\n    scope: node\n    expr: temperature.gpu > 1\n    severity: info\n"),
            "rules.yaml:4: 'expr', column 1: 'temperature.gpu' is a per-GPU value: it needs scope: gpu");
}

}  // namespace rule_parser_test
}  // namespace gpuwatch::alerts
