// The chart data and section of the HTML report (uPlot draws them in the browser;
// tests/e2e/test_report_browser.py checks the drawing in Chromium).
#include "report/html_charts.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::report {
namespace {

store::ChartPoint point(std::int64_t time_ms, std::optional<double> utilization, std::optional<double> memory,
                        std::optional<double> power, std::optional<double> temperature,
                        std::optional<double> sm_clock = std::nullopt, std::optional<double> held_back = std::nullopt) {
  store::ChartPoint p;
  p.time_ms = time_ms;
  p.utilization_percent = utilization;
  p.memory_used_bytes = memory;
  p.power_w = power;
  p.temperature_c = temperature;
  p.sm_clock_mhz = sm_clock;
  p.held_back_share = held_back;
  return p;
}

store::HistoryReport two_gpu_report() {
  store::HistoryReport report;
  for (unsigned i = 0; i < 2; ++i) {
    store::GpuSummary s;
    s.gpu.index = i;
    s.gpu.name = "NVIDIA H100 <80GB>";
    s.gpu.uuid = "GPU-" + std::to_string(i);
    s.first_ms = 1'700'000'000'000;
    s.last_ms = 1'700'000'002'000;
    s.chart.push_back(point(s.first_ms, 10.0 + i, 1048576.0 * 512, 300.25, 60.0, 1980.0, 0.25));
    s.chart.push_back(point(s.first_ms + 1000, std::nullopt, std::nullopt, std::nullopt, std::nullopt));
    s.chart.push_back(point(s.first_ms + 2000, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0));  // real zeros stay zeros
    report.gpus.push_back(s);
  }
  // GPU 1 has no bucket at +1 s and one of its own at +3 s: the time axis is the union.
  report.gpus[1].chart.erase(report.gpus[1].chart.begin() + 1);
  report.gpus[1].chart.push_back(point(1'700'000'003'000, 50.0, std::nullopt, std::nullopt, std::nullopt));
  return report;
}

std::size_t count_of(const std::string& html, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = html.find(needle); pos != std::string::npos; pos = html.find(needle, pos + 1)) ++n;
  return n;
}

TEST(ReportHtmlCharts, DataHasEverySeriesPerGpuOnOneTimeAxisWithNullForAbsent) {
  auto data = nlohmann::json::parse(report_chart_data_json(two_gpu_report(), {{1, diagnose::Severity::Critical}}));
  ASSERT_EQ(data["charts"].size(), 6U);
  ASSERT_EQ(data["gpus"].size(), 2U);
  EXPECT_EQ(data["time_s"], nlohmann::json({1'700'000'000.0, 1'700'000'001.0, 1'700'000'002.0, 1'700'000'003.0}));
  const auto& gpu0 = data["gpus"][0];
  const auto& gpu1 = data["gpus"][1];
  EXPECT_EQ(gpu1["label"], "GPU 1");
  EXPECT_EQ(gpu1["index"], 1);
  EXPECT_EQ(gpu1["severity"], "critical");
  EXPECT_TRUE(gpu0["severity"].is_null());
  EXPECT_EQ(gpu0["series"]["utilization"], nlohmann::json({10.0, nullptr, 0.0, nullptr}));
  EXPECT_EQ(gpu1["series"]["utilization"], nlohmann::json({11.0, nullptr, 0.0, 50.0}));
  EXPECT_EQ(gpu1["series"]["memory"], nlohmann::json({512.0, nullptr, 0.0, nullptr}));  // MiB
  EXPECT_EQ(gpu1["series"]["power"], nlohmann::json({300.3, nullptr, 0.0, nullptr}));   // one decimal
  EXPECT_EQ(gpu1["series"]["temperature"], nlohmann::json({60.0, nullptr, 0.0, nullptr}));
  EXPECT_EQ(gpu1["series"]["sm_clock"], nlohmann::json({1980.0, nullptr, 0.0, nullptr}));
  EXPECT_EQ(gpu1["series"]["held_back"], nlohmann::json({25.0, nullptr, 0.0, nullptr}));  // percent of samples
  for (const auto& chart : data["charts"]) EXPECT_TRUE(gpu1["series"].contains(chart["key"])) << chart;
  EXPECT_EQ(data["charts"][0]["max"], 100.0);  // utilization: a fixed 0..100 % axis
  EXPECT_TRUE(data["charts"][1]["max"].is_null());
  EXPECT_EQ(data["charts"][2]["unit"], "°C");
  EXPECT_EQ(data["utc"], false);  // the viewer's local zone, unless report --utc
  EXPECT_EQ(nlohmann::json::parse(report_chart_data_json(two_gpu_report(), {}, true))["utc"], true);
}

TEST(ReportHtmlCharts, NodeChartsAndCollapsedPerGpuCharts) {
  const std::string node = node_charts_html(kNodeChartSeries);
  EXPECT_EQ(count_of(node, "<div class=\"chart node-chart\" data-series="), 4U);
  EXPECT_NE(node.find("data-series=\"temperature\""), std::string::npos);
  const std::string clocks = node_charts_html(kClockChartSeries);
  EXPECT_NE(clocks.find("data-series=\"sm_clock\""), std::string::npos);
  EXPECT_NE(clocks.find("data-series=\"held_back\""), std::string::npos);

  const std::string details = gpu_details_html(two_gpu_report(), {{1, diagnose::Severity::Warning}});
  for (const char* gpu : {"0", "1"}) {
    EXPECT_EQ(count_of(details, std::string("<div class=\"chart\" data-gpu=\"") + gpu + "\" data-series="), 6U) << gpu;
  }
  EXPECT_EQ(count_of(details, "<details class=\"gpu-detail"), 2U);
  EXPECT_EQ(count_of(details, "<details class=\"gpu-detail\" open"), 0U);  // collapsed
  EXPECT_NE(details.find("<details class=\"gpu-detail gpu-warning\" data-gpu=\"1\">"), std::string::npos);
  EXPECT_NE(details.find("NVIDIA H100 &lt;80GB&gt;"), std::string::npos);
}

TEST(ReportHtmlCharts, ScriptsInlineUplotThenOurs) {
  const std::string html = report_chart_scripts(two_gpu_report());
  EXPECT_NE(html.find("id=\"gpuwatch-report-data\""), std::string::npos);
  EXPECT_NE(html.find("var uPlot="), std::string::npos);
  EXPECT_NE(html.find("MIT"), std::string::npos);  // uPlot's license travels with it
  EXPECT_LT(html.find("var uPlot="), html.find("data-charts-drawn"));  // uPlot first, then our script
}

TEST(ReportHtmlCharts, EscapesHtml) { EXPECT_EQ(html_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;"); }

}  // namespace
}  // namespace gpuwatch::report
