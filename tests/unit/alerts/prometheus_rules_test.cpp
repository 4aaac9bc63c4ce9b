// deploy/prometheus/gpuwatch-rules.yaml is exactly what prometheus_rules_yaml(builtin_rules())
// renders. GPUWATCH_UPDATE_RULES=1 rewrites the file (then review the diff and run promtool).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "alerts/builtin_rules.hpp"
#include "alerts/rule_parser.hpp"

namespace gpuwatch::alerts {
namespace {

const std::string kPath = std::string(GPUWATCH_SOURCE_DIR) + "/deploy/prometheus/gpuwatch-rules.yaml";

TEST(AlertsPrometheusRules, DeployFileIsTheRenderingOfTheBuiltinSet) {
  const std::string rendered = prometheus_rules_yaml(builtin_rules());
  if (std::getenv("GPUWATCH_UPDATE_RULES")) {
    std::ofstream(kPath, std::ios::binary) << rendered;
    std::cout << "wrote " << kPath << "\n";
  }
  std::ifstream in(kPath, std::ios::binary);
  ASSERT_TRUE(in) << kPath;
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(file.str(), rendered) << "deploy/prometheus/gpuwatch-rules.yaml is out of date: run "
                                     "GPUWATCH_UPDATE_RULES=1 unit_tests --gtest_filter='AlertsPrometheusRules.*'";
}

TEST(AlertsPrometheusRules, BuiltinSetParsesAndCoversBothEngines) {
  const RuleSet& rules = builtin_rules_ref();
  std::set<std::string> local, prometheus;
  for (const auto& r : rules.rules) {
    if (r.local) local.insert(r.alert);
    if (r.prometheus) prometheus.insert(r.alert);
    EXPECT_FALSE(r.annotations.empty()) << r.alert;
  }
  for (const char* name : {"GpuTemperatureHigh", "GpuMemoryAlmostFull", "GpuHungJob", "GpuIdleAllocation",
                           "GpuMemoryLeakPredicted", "GpuStuckCollective", "GpuDiagnosisFinding", "GpuLost",
                           "GpuMissing", "GpuStale", "GpuXidCritical", "GpuXidError", "GpuUncorrectableEccErrors",
                           "GpuRowRemapFailure", "GpuRecoveryActionRequired", "GpuThermalThrottling",
                           "GpuPowerThrottling", "GpuPowerBrake", "GpuDriverUnavailable"}) {
    EXPECT_TRUE(local.count(name)) << name;
    EXPECT_TRUE(prometheus.count(name)) << name;
  }
  EXPECT_TRUE(local.count("GpuwatchSamplerStopped"));
  EXPECT_FALSE(prometheus.count("GpuwatchSamplerStopped"));
  EXPECT_TRUE(prometheus.count("GpuExporterDown"));
  EXPECT_FALSE(local.count("GpuExporterDown"));
}

TEST(AlertsPrometheusRules, RendersGroupsRulesAndQuoting) {
  auto r = parse_rules(R"Y(rules:
  - alert: A
    group: g1
    comment: "two\nlines"
    expr: lost == 1
    for: 90s
    keep_firing_for: 1m
    severity: critical
    labels: {team: "yes"}
    annotations: {summary: "say \"hi\" {{ $value }}"}
    promql: |-
      x > 1
      or y > 2
  - alert: B
    group: g2
    expr: lost == 1
    severity: info
    promql: 'up{job="a"} == 0'
  - {alert: LocalOnly, expr: lost == 1, severity: info}
)Y", "t.yaml");
  ASSERT_TRUE(r) << r.error().message;
  const std::string out = prometheus_rules_yaml(*r);
  const std::string body = out.substr(out.find("groups:\n"));
  EXPECT_EQ(body,
            "groups:\n"
            "  - name: g1\n"
            "    rules:\n"
            "      # two\n"
            "      # lines\n"
            "      - alert: A\n"
            "        expr: |-\n"
            "          x > 1\n"
            "          or y > 2\n"
            "        for: 1m30s\n"
            "        keep_firing_for: 1m\n"
            "        labels:\n"
            "          severity: critical\n"
            "          team: \"yes\"\n"
            "        annotations:\n"
            "          summary: \"say \\\"hi\\\" {{ $value }}\"\n"
            "\n"
            "  - name: g2\n"
            "    rules:\n"
            "      - alert: B\n"
            "        expr: up{job=\"a\"} == 0\n"
            "        labels:\n"
            "          severity: info\n");
}

}  // namespace
}  // namespace gpuwatch::alerts
