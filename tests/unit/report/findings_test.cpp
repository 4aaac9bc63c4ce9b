// `gpuwatch report`'s findings (issue 10): text section, HTML panel, JSON array, GPU marks.
#include "report/findings.hpp"

#include <gtest/gtest.h>

#include "report/render.hpp"

namespace gpuwatch::report {
namespace findings_test {  // this test file's helpers (unity builds: no clash with another file's)

using std::chrono::system_clock;

diagnose::Finding finding(std::string kind, diagnose::Severity severity, std::vector<unsigned> gpus, int start_s,
                          int end_s) {
  diagnose::Finding f;
  f.kind = std::move(kind);
  f.severity = severity;
  f.gpus = std::move(gpus);
  f.uuids = std::vector<std::string>(f.gpus.size(), "GPU-x");
  f.start = system_clock::time_point(std::chrono::seconds(1'700'000'000 + start_s));
  f.end = system_clock::time_point(std::chrono::seconds(1'700'000'000 + end_s));
  f.summary = f.kind + " <summary>";
  f.detail = "the numbers";
  f.advice = {"try this", "or that"};
  return f;
}

ReportFindings sample() {
  ReportFindings r;
  r.diagnosed = true;
  r.samples = 360;
  r.findings.push_back(finding("input_starved", diagnose::Severity::Info, {1}, 0, 30));
  auto throttle = finding("thermal_throttle", diagnose::Severity::Critical, {3}, 100, 225);
  throttle.impact = 0.6;
  r.findings.push_back(throttle);
  auto pressure = finding("memory_pressure", diagnose::Severity::Warning, {6}, 50, 76);
  pressure.active = false;
  r.findings.push_back(pressure);
  return r;
}

TEST(ReportFindings, TextIsWorstFirstWithImpactSpanAndAdvice) {
  const std::string text = report_findings_text(sample());
  EXPECT_EQ(text.rfind("Findings (3: 1 critical, 1 warning, 1 info), worst first:\n", 0), 0U) << text;
  const auto critical = text.find("CRITICAL  GPU 3  thermal_throttle <summary>");
  const auto warning = text.find("WARNING   GPU 6  memory_pressure <summary>");
  const auto info = text.find("INFO      GPU 1  input_starved <summary>");
  ASSERT_NE(critical, std::string::npos) << text;
  EXPECT_LT(critical, warning);
  EXPECT_LT(warning, info);
  EXPECT_NE(text.find("impact: about 60 % of the GPU's time or throughput lost"), std::string::npos);
  EXPECT_NE(text.find("(2m 05s), still active at the end"), std::string::npos) << text;
  EXPECT_NE(text.find("(26.0s), ended"), std::string::npos) << text;
  EXPECT_NE(text.find("try:    try this\n"), std::string::npos);
  EXPECT_NE(text.find("kind:   memory_pressure\n"), std::string::npos);
}

TEST(ReportFindings, NoneIsSaidPlainlyAndNotDiagnosedIsSilent) {
  ReportFindings none;
  none.diagnosed = true;
  none.samples = 10;
  EXPECT_EQ(report_findings_text(none), "No findings: the GPUs look healthy over the 10 diagnosed samples.\n");
  none.samples = 0;
  EXPECT_NE(report_findings_text(none).find("No findings: no raw samples"), std::string::npos);
  EXPECT_NE(report_findings_html(none).find("<p class=\"no-findings\">No findings"), std::string::npos);
  EXPECT_EQ(report_findings_text(ReportFindings{}), "");
  EXPECT_EQ(report_findings_html(ReportFindings{}), "");
}

TEST(ReportFindings, LimitSaysHowManyMore) {
  const std::string text = report_findings_text(sample(), 1);
  EXPECT_EQ(text.find("WARNING"), std::string::npos);
  EXPECT_NE(text.find("... and 2 more"), std::string::npos);
}

TEST(ReportFindings, HtmlEscapesAndColoursBySeverity) {
  const std::string html = report_findings_html(sample());
  // the finding's own "<summary>" text is escaped; the only <summary> elements are the page's own
  std::size_t elements = 0, ours = 0;
  for (auto at = html.find("<summary>"); at != std::string::npos; at = html.find("<summary>", at + 1)) ++elements;
  for (auto at = html.find("<summary>why, and what to try</summary>"); at != std::string::npos;
       at = html.find("<summary>why, and what to try</summary>", at + 1))
    ++ours;
  EXPECT_EQ(elements, ours);
  EXPECT_EQ(ours, 3U);  // one per finding: why and what to try, collapsed
  EXPECT_NE(html.find("&lt;summary&gt;"), std::string::npos);
  EXPECT_NE(html.find("<li class=\"finding severity-critical\" data-kind=\"thermal_throttle\""), std::string::npos);
  EXPECT_LT(html.find("severity-critical"), html.find("severity-warning"));
  EXPECT_NE(html.find("<ul class=\"finding-advice\">\n<li>try this</li>"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(ReportFindings, JsonIsTheDiagnoseSchemaWorstFirst) {
  const auto json = report_findings_json(sample().findings);
  ASSERT_EQ(json.size(), 3U);
  EXPECT_EQ(json[0]["kind"], "thermal_throttle");
  EXPECT_EQ(json[0]["impact"], 0.6);
  EXPECT_EQ(json[1]["severity"], "warning");
  EXPECT_EQ(json[2]["impact"], nullptr);
  EXPECT_EQ(json[0]["gpus"], nlohmann::ordered_json::array({3}));
}

TEST(ReportFindings, WorstSeverityByGpuAndGpuText) {
  auto r = sample();
  r.findings.push_back(finding("imbalance", diagnose::Severity::Warning, {1, 3}, 0, 10));
  const auto worst = worst_severity_by_gpu(r.findings);
  EXPECT_EQ(worst.at(1), diagnose::Severity::Warning);
  EXPECT_EQ(worst.at(3), diagnose::Severity::Critical);
  EXPECT_EQ(worst.count(0), 0U);
  EXPECT_EQ(findings_gpu_text({1, 3}), "GPUs 1,3");
  EXPECT_EQ(findings_gpu_text({}), "node");
}

TEST(ReportFindings, ReportPutsThemFirst) {
  store::HistoryReport report;
  store::GpuSummary s;
  s.gpu.index = 3;
  s.samples = 10;
  report.gpus.push_back(s);
  const std::string text = render_report_text(report, sample());
  EXPECT_LT(text.find("Findings ("), text.find("util mean"));
  EXPECT_NE(text.find("findings\n"), std::string::npos);  // the GPU table's findings column
  const std::string html = render_report_html(report, sample());
  ASSERT_NE(html.find("<h2 id=\"gpus-title\">GPUs</h2>"), std::string::npos);
  EXPECT_LT(html.find("<section class=\"findings\""), html.find("<h2 id=\"gpus-title\">GPUs</h2>"));
  EXPECT_NE(html.find("<tr class=\"gpu-critical\"><th scope=\"row\">3</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<details class=\"gpu-detail gpu-critical\" data-gpu=\"0\">"), std::string::npos);
  const auto json = nlohmann::json::parse(render_report_json(report, sample()));
  EXPECT_EQ(json["findings"].size(), 3U);
  EXPECT_EQ(json["gpus"][0]["worst_finding"], "critical");
  EXPECT_EQ(nlohmann::json::parse(render_report_json(report)).count("findings"), 0U);
}

}  // namespace findings_test
}  // namespace gpuwatch::report
