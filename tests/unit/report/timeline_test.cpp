// The report's event timeline (report/timeline.hpp): Xids, alerts and the findings' starts,
// oldest first.
#include "report/timeline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace gpuwatch::report {
namespace timeline_test {  // this test file's helpers (unity builds: no clash with another file's)

constexpr std::int64_t kT0 = 1'700'000'000'000;

diagnose::Finding finding(const char* kind, diagnose::Severity severity, std::int64_t start_ms) {
  diagnose::Finding f;
  f.kind = kind;
  f.severity = severity;
  f.gpus = {2};
  f.summary = std::string(kind) + " summary";
  f.start = f.end = std::chrono::system_clock::time_point(std::chrono::milliseconds(start_ms));
  return f;
}

TEST(ReportTimeline, MergesXidsAlertsAndFindingsOldestFirst) {
  store::HistoryReport report;
  report.xid_events.push_back({kT0 + 15'000, 6, "GPU-6", 31});
  store::AlertEventRow alert;
  alert.time_ms = kT0 + 5'000;
  alert.kind = "firing";
  alert.rule = "GpuThermalThrottling";
  alert.severity = "critical";
  alert.gpu = 3;
  alert.alert_json = R"({"annotations": {"summary": "GPU 3 is throttled"}})";
  report.alert_events.push_back(alert);
  alert.time_ms = kT0 + 50'000;
  alert.kind = "resolved";
  report.alert_events.push_back(alert);
  ReportFindings findings;
  findings.findings.push_back(finding("thermal_throttle", diagnose::Severity::Critical, kT0 + 15'000));
  findings.findings.push_back(finding("xid", diagnose::Severity::Info, kT0 + 15'000));        // the Xid events say it
  findings.findings.push_back(finding("low_utilization", diagnose::Severity::Info, kT0));    // info: not an event
  findings.findings.push_back(finding("ecc_uncorrectable", diagnose::Severity::Critical, kT0 + 20'000));

  const auto events = report_timeline(report, findings);
  ASSERT_EQ(events.size(), 5U);
  EXPECT_EQ(events[0].kind, "alert");
  EXPECT_EQ(events[0].text, "alert GpuThermalThrottling firing: GPU 3 is throttled");
  EXPECT_EQ(events[0].severity, diagnose::Severity::Critical);
  EXPECT_EQ(events[1].kind, "xid");  // same time as the finding: the Xid first
  EXPECT_EQ(events[1].gpus, std::vector<unsigned>{6});
  EXPECT_NE(events[1].text.find("Xid 31: "), std::string::npos) << events[1].text;
  EXPECT_EQ(events[2].kind, "finding");
  EXPECT_EQ(events[3].kind, "ecc");
  EXPECT_EQ(events[4].kind, "alert");
  EXPECT_FALSE(events[4].severity);  // resolved: good news

  std::size_t more = 0;
  EXPECT_EQ(report_timeline(report, findings, 2, &more).size(), 2U);
  EXPECT_EQ(more, 3U);
}

// The event of a finding is its kind's (diagnose/kinds.def's timeline column): hardware kinds
// have their own and show at any severity; the others show as "finding" from warning on.
TEST(ReportTimeline, HardwareKindsHaveTheirOwnEventsAtAnySeverity) {
  ReportFindings findings;
  for (const char* kind : {"row_remap", "gpu_lost", "recovery_action", "pcie_degraded", "low_utilization",
                           "some_newer_kind"})
    for (auto severity : {diagnose::Severity::Info, diagnose::Severity::Warning})
      findings.findings.push_back(finding(kind, severity, kT0));
  std::vector<std::string> kinds;
  for (const auto& e : report_timeline(store::HistoryReport{}, findings)) kinds.push_back(e.kind + ":" + e.text);
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "ecc:row_remap summary", "ecc:row_remap summary", "lost:gpu_lost summary", "lost:gpu_lost summary",
                       "hardware:recovery_action summary", "hardware:recovery_action summary",
                       "hardware:pcie_degraded summary", "hardware:pcie_degraded summary",
                       "finding:low_utilization summary", "finding:some_newer_kind summary"}));
}

}  // namespace timeline_test
}  // namespace gpuwatch::report
