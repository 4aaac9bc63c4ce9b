// The chart data and section of the HTML report (uPlot draws them in the browser;
// tests/e2e/test_report_browser.py checks the drawing in Chromium).
#include "report/html_charts.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::report {
namespace {

store::HistoryReport two_gpu_report() {
  store::HistoryReport report;
  for (unsigned i = 0; i < 2; ++i) {
    store::GpuSummary s;
    s.gpu.index = i;
    s.gpu.name = "NVIDIA H100 <80GB>";
    s.gpu.uuid = "GPU-" + std::to_string(i);
    s.first_ms = 1'700'000'000'000;
    s.last_ms = 1'700'000'002'000;
    s.chart.push_back({s.first_ms, 10.0 + i, 1048576.0 * 512, 300.25, 60.0});
    s.chart.push_back({s.first_ms + 1000, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
    s.chart.push_back({s.first_ms + 2000, 0.0, 0.0, 0.0, 0.0});  // real zeros stay zeros
    report.gpus.push_back(s);
  }
  return report;
}

TEST(ReportHtmlCharts, DataHasEverySeriesPerGpuWithNullForAbsent) {
  auto data = nlohmann::json::parse(report_chart_data_json(two_gpu_report()));
  ASSERT_EQ(data["charts"].size(), 4U);
  ASSERT_EQ(data["gpus"].size(), 2U);
  const auto& gpu1 = data["gpus"][1];
  EXPECT_EQ(gpu1["label"], "GPU 1");
  EXPECT_EQ(gpu1["time_s"], nlohmann::json({1'700'000'000.0, 1'700'000'001.0, 1'700'000'002.0}));
  EXPECT_EQ(gpu1["series"]["utilization"], nlohmann::json({11.0, nullptr, 0.0}));
  EXPECT_EQ(gpu1["series"]["memory"], nlohmann::json({512.0, nullptr, 0.0}));  // MiB
  EXPECT_EQ(gpu1["series"]["power"], nlohmann::json({300.3, nullptr, 0.0}));   // one decimal
  EXPECT_EQ(gpu1["series"]["temperature"], nlohmann::json({60.0, nullptr, 0.0}));
  for (const auto& chart : data["charts"]) EXPECT_TRUE(gpu1["series"].contains(chart["key"])) << chart;
  EXPECT_EQ(data["charts"][0]["max"], 100.0);  // utilization: a fixed 0..100 % axis
  EXPECT_TRUE(data["charts"][1]["max"].is_null());
}

TEST(ReportHtmlCharts, SectionHasOnePlaceholderPerSeriesPerGpuAndInlinesUplot) {
  std::string html = report_charts_section(two_gpu_report());
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t pos = html.find(needle); pos != std::string::npos; pos = html.find(needle, pos + 1)) ++n;
    return n;
  };
  for (const char* gpu : {"0", "1"}) {
    EXPECT_EQ(count(std::string("<div class=\"chart\" data-gpu=\"") + gpu + "\" data-series="), 4U) << gpu;
  }
  EXPECT_EQ(count("<div class=\"chart\" data-gpu=\"2\""), 0U);
  EXPECT_NE(html.find("NVIDIA H100 &lt;80GB&gt;"), std::string::npos);
  EXPECT_NE(html.find("var uPlot="), std::string::npos);
  EXPECT_NE(html.find("MIT"), std::string::npos);  // uPlot's license travels with it
  EXPECT_LT(html.find("var uPlot="), html.find("data-charts-drawn"));  // uPlot first, then our script
}

TEST(ReportHtmlCharts, EscapesHtml) { EXPECT_EQ(html_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;"); }

}  // namespace
}  // namespace gpuwatch::report
