#include "jobs/limiting_resource.hpp"

#include <gtest/gtest.h>

#include "jobs/job_summary.hpp"

namespace gpuwatch::jobs {
namespace limiting_resource_test {  // this test file's helpers (unity builds)

diagnose::Finding named(const std::string& kind, const std::string& cause, diagnose::Severity severity, double impact,
                        std::vector<unsigned> gpus = {0}) {
  diagnose::Finding f;
  f.kind = kind;
  f.cause = cause;
  f.severity = severity;
  f.impact = impact;
  f.gpus = std::move(gpus);
  f.summary = kind + " " + cause;
  return f;
}

using diagnose::Severity;

TEST(LimitingResource, EachCauseNamesItsResource) {
  const std::pair<diagnose::Finding, std::string> cases[] = {
      {named("input_starved", "cpu_bound", Severity::Warning, 0.4), "host CPU"},
      {named("input_starved", "io_bound", Severity::Warning, 0.4), "storage I/O"},
      {named("input_starved", "unknown", Severity::Warning, 0.4), "input pipeline"},
      {named("comm_bound", "network", Severity::Warning, 0.25), "network"},
      {named("host_memory_pressure", "memory", Severity::Warning, 0.1), "host memory"},
  };
  for (const auto& [finding, resource] : cases) {
    auto limit = limiting_resource({finding});
    ASSERT_TRUE(limit) << finding.kind;
    EXPECT_EQ(limit->resource, resource) << finding.kind << " " << finding.cause;
  }
}

TEST(LimitingResource, LowUtilizationNamesTheKernelsOnlyWhenTheHostWasIdle) {
  auto low = named("low_utilization", "", Severity::Info, 0.6);
  EXPECT_FALSE(limiting_resource({low}));  // the host was not seen idle: it names nothing
  low.evidence["host_idle"] = 1.0;
  auto limit = limiting_resource({low});
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->resource, "GPU kernels");
}

TEST(LimitingResource, TheWorstFindingWinsThenTheLargestImpact) {
  std::vector<diagnose::Finding> findings = {
      named("thermal_throttle", "", Severity::Critical, 0.9),  // names no resource
      named("host_memory_pressure", "memory", Severity::Warning, 0.1),
      named("input_starved", "io_bound", Severity::Warning, 0.5),
      named("low_utilization", "", Severity::Info, 0.8),
  };
  findings.back().evidence["host_idle"] = 1.0;
  auto limit = limiting_resource(findings);
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->resource, "storage I/O");
  EXPECT_EQ(limit->finding, &findings[2]);
  const auto j = limiting_resource_json(findings);
  EXPECT_EQ(j["resource"], "storage I/O");
  EXPECT_EQ(j["kind"], "input_starved");
  EXPECT_EQ(j["cause"], "io_bound");
  EXPECT_EQ(j["gpus"], nlohmann::json::array({0}));
  EXPECT_EQ(limiting_resource_text(findings),
            "storage I/O (the data loading waits on the disks; input_starved on GPU 0): input_starved io_bound");
}

TEST(LimitingResource, NoneNamedIsNothing) {
  const std::vector<diagnose::Finding> findings = {named("thermal_throttle", "", Severity::Warning, 0.3)};
  EXPECT_FALSE(limiting_resource(findings));
  EXPECT_TRUE(limiting_resource_json(findings).is_null());
  EXPECT_EQ(limiting_resource_text(findings), "");
}

TEST(LimitingResource, TheRunSummarySaysIt) {
  JobInfo info;
  info.name = "train";
  JobSummary s = summarize(info, {}, {}, {named("comm_bound", "network", Severity::Warning, 0.25, {0, 1})}, {});
  s.findings = {named("comm_bound", "network", Severity::Warning, 0.25, {0, 1})};
  const std::string text = summary_text(s);
  EXPECT_NE(text.find("  limited by: network (the GPUs wait together"), std::string::npos) << text;
  EXPECT_NE(text.find("comm_bound on GPUs 0,1): comm_bound network\n"), std::string::npos) << text;
  const auto j = summary_json(s);
  ASSERT_TRUE(j.contains("limited_by"));
  EXPECT_EQ(j["limited_by"]["resource"], "network");
  s.findings.clear();
  EXPECT_TRUE(summary_json(s)["limited_by"].is_null());
  EXPECT_EQ(summary_text(s).find("limited by"), std::string::npos);
}

}  // namespace limiting_resource_test
}  // namespace gpuwatch::jobs
