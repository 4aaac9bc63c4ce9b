// `gpuwatch report` rendering: text, JSON and the self-contained HTML page.
#include "report/render.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

namespace gpuwatch::report {
namespace {

store::HistoryReport sample_report() {
  store::HistoryReport report;
  store::GpuSummary s;
  s.gpu.index = 0;
  s.gpu.uuid = "GPU-abc";
  s.gpu.name = "NVIDIA <A100>";
  s.samples = 20;
  s.first_ms = 1'700'000'000'000;
  s.last_ms = 1'700'000'019'000;
  s.sample_interval_s = 1.0;
  s.mean_utilization_percent = 47.5;
  s.p95_utilization_percent = 90;
  s.idle_share = 0.05;
  s.peak_memory_used_bytes = 3ULL << 30;
  s.energy_kwh = 1.5;
  s.energy_source = "counter";
  s.max_temperature_c = 80;
  s.throttle_mask_recorded = true;
  s.throttling.push_back({"sw_power_cap", 5, 5.0});
  s.chart.push_back({s.first_ms, 10.0, 1e9, std::nullopt, 60.0});
  s.chart.push_back({s.last_ms, 90.0, 2e9, std::nullopt, 70.0});
  report.gpus.push_back(s);
  store::ProcessSummary p;
  p.gpu_index = 0;
  p.pid = 4242;
  p.name = "train.py";
  p.first_seen_ms = s.first_ms;
  p.last_seen_ms = s.first_ms + 125'000;
  report.processes.push_back(p);
  return report;
}

TEST(ReportRender, TextHasEveryFigure) {
  std::string text = render_report_text(sample_report());
  for (const char* expected : {"47.5 %", "90 %", "5.0 %", "3072 MiB", "1.50 kWh", "80 °C", "sw_power_cap", "5.0s",
                               "train.py", "4242", "2m 05s", "N/A", "Summary:\n  - 1 GPU over 19.0s from "}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
}

TEST(ReportRender, EstimatedEnergyIsMarkedAndExplained) {
  auto report = sample_report();
  std::string text = render_report_text(report);
  EXPECT_EQ(text.find("~1.50 kWh"), std::string::npos);  // from the counter: no mark
  EXPECT_EQ(text.find("~energy"), std::string::npos);
  report.gpus[0].energy_source = "estimated";
  text = render_report_text(report);
  EXPECT_NE(text.find("~1.50 kWh"), std::string::npos) << text;
  EXPECT_NE(text.find("~energy: estimated from power samples (no energy counter)"), std::string::npos) << text;
  const auto html = render_report_html(report, {});
  EXPECT_NE(html.find("~1.50 kWh"), std::string::npos);
  EXPECT_NE(html.find("~energy: estimated from power samples"), std::string::npos);
}

TEST(ReportRender, RollupsAreNamedAndTheirP95MarkedApproximate) {
  auto report = sample_report();
  EXPECT_EQ(report_sources_note(report), "");  // raw samples only: nothing to say
  auto plain = nlohmann::json::parse(render_report_json(report));
  EXPECT_TRUE(plain["p95_approximate_before"].is_null());
  EXPECT_TRUE(plain["sources"]["rollup_1m"].is_null());
  EXPECT_EQ(plain["gpus"][0]["utilization_gpu_p95_approximate"], false);

  report.raw = store::SourceSpan{1'700'000'010'000, 1'700'000'019'000};
  report.rollup_1h = store::SourceSpan{1'699'000'000'000, 1'699'500'000'000};
  report.gpus[0].p95_approximate = true;
  report.gpus[0].rollup_samples = 10;
  const std::string note = report_sources_note(report);
  EXPECT_NE(note.find("1-hour rollups from 20"), std::string::npos) << note;  // an ISO-8601 time (zone: local)
  EXPECT_EQ(note.find("1-minute"), std::string::npos) << note;
  EXPECT_NE(note.find("approximate"), std::string::npos) << note;
  const std::string text = render_report_text(report);
  EXPECT_NE(text.find(note), std::string::npos) << text;
  EXPECT_NE(text.find("~90 %"), std::string::npos) << text;
  EXPECT_NE(render_report_html(report).find("1-hour rollups from"), std::string::npos);
  auto json = nlohmann::json::parse(render_report_json(report));
  EXPECT_EQ(json["gpus"][0]["utilization_gpu_p95_approximate"], true);
  EXPECT_EQ(json["gpus"][0]["rollup_samples"], 10);
  EXPECT_EQ(json["p95_approximate_before"], json["sources"]["raw"]["first"]);
  EXPECT_TRUE(json["sources"]["rollup_1m"].is_null());
  EXPECT_FALSE(json["sources"]["rollup_1h"]["last"].is_null());
}

TEST(ReportRender, JsonUsesBaseUnitsAndNulls) {
  auto json = nlohmann::json::parse(render_report_json(sample_report()));
  const auto& g = json["gpus"][0];
  EXPECT_EQ(g["utilization_gpu_mean_percent"], 47.5);
  EXPECT_EQ(g["memory_used_peak_bytes"], 3ULL << 30);
  EXPECT_TRUE(g["power_draw_mean_w"].is_null());
  EXPECT_EQ(g["throttling"]["sw_power_cap"]["seconds"], 5.0);
  EXPECT_EQ(g["energy_source"], "counter");
  EXPECT_EQ(json["processes"][0]["run_time_s"], 125.0);
  EXPECT_TRUE(json["processes"][0]["memory_used_peak_bytes"].is_null());
}

// NVML names the process `python`; the recorded command line (schema 11) says which job it was.
TEST(ReportRender, ProcessesShowTheRecordedCommandElseTheName) {
  auto report = sample_report();
  report.processes[0].name = "python";
  report.processes[0].command = "python eval_server.py --port 8500 " + std::string(100, 'x') + " <tail>";
  auto old = report.processes[0];
  old.pid = 77;
  old.command.reset();
  report.processes.push_back(old);
  const std::string text = render_report_text(report);
  const auto table = text.substr(text.find("Processes seen:"));
  EXPECT_NE(table.find("command"), std::string::npos) << table;
  EXPECT_NE(table.find("python eval_server.py --port 8500 xxx"), std::string::npos) << table;
  EXPECT_EQ(table.find("<tail>"), std::string::npos) << table;  // the text shows its start
  auto json = nlohmann::json::parse(render_report_json(report));
  EXPECT_EQ(json["processes"][0]["name"], "python");
  EXPECT_EQ(json["processes"][0]["command"], *report.processes[0].command);
  EXPECT_TRUE(json["processes"][1]["command"].is_null());  // not recorded: null, not the name
  const std::string html = render_report_html(report);
  // The cell shows the start, the title attribute all of it (escaped); the old row its name.
  EXPECT_NE(html.find("title=\"python eval_server.py --port 8500 " + std::string(100, 'x') + " &lt;tail&gt;\""),
            std::string::npos);
  EXPECT_NE(html.find("<code>python eval_server.py --port 8500 xxx"), std::string::npos);
  EXPECT_NE(html.find("title=\"python\"><code>python</code>"), std::string::npos);
}

TEST(ReportRender, HtmlIsSelfContainedWithCharts) {
  std::string html = render_report_html(sample_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(html.find("NVIDIA &lt;A100&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("<A100>"), std::string::npos);
  for (const char* remote : {" src=", " href=", "<link", "@import", "url(http"}) {
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
  }
  // uPlot and the chart script inlined; one chart placeholder per series for the one GPU.
  EXPECT_NE(html.find("var uPlot="), std::string::npos);
  EXPECT_NE(html.find("data-charts-drawn"), std::string::npos);
  EXPECT_NE(html.find(".uplot"), std::string::npos);  // uPlot's stylesheet
  for (const char* series : {"utilization", "memory", "temperature", "power", "sm_clock", "held_back"}) {
    EXPECT_NE(html.find(std::string("data-gpu=\"0\" data-series=\"") + series + "\""), std::string::npos) << series;
    EXPECT_NE(html.find(std::string("<div class=\"chart node-chart\" data-series=\"") + series + "\""),
              std::string::npos) << series;
  }
  EXPECT_NE(html.find("id=\"gpuwatch-report-data\""), std::string::npos);
  EXPECT_NE(html.find("sw_power_cap"), std::string::npos);
}

TEST(ReportRender, TimesAreStatusFormatInTheChosenZone) {
  // 1'700'000'000'000 ms = 2023-11-14 22:13:20 UTC
  const std::string text = render_report_text(sample_report(), {}, TimeStyle{true});
  EXPECT_NE(text.find("gpuwatch report: 2023-11-14 22:13:20 – 22:13:39 (UTC)"), std::string::npos) << text;
  EXPECT_EQ(text.find("T22:13"), std::string::npos) << text;  // not ISO 8601 in the text
  const std::string html = render_report_html(sample_report(), {}, TimeStyle{true});
  EXPECT_NE(html.find("2023-11-14 22:13:20 – 22:13:39 (UTC)"), std::string::npos);
  // JSON stays ISO 8601 with the offset, whatever the style.
  auto json = nlohmann::json::parse(render_report_json(sample_report()));
  EXPECT_NE(json["gpus"][0]["first_sample"].get<std::string>().find('T'), std::string::npos);
}

TEST(ReportRender, HtmlPutsTroubleFirst) {
  auto report = sample_report();
  ReportFindings findings;
  findings.diagnosed = true;
  findings.samples = 20;
  diagnose::Finding f;
  f.kind = "thermal_throttle";
  f.severity = diagnose::Severity::Critical;
  f.gpus = {0};
  f.summary = "thermal throttling 60 % of the time";
  f.start = f.end = std::chrono::system_clock::time_point(std::chrono::milliseconds(report.gpus[0].first_ms));
  findings.findings.push_back(f);
  report.gpus[0].thermal_share = 0.6;
  report.gpus[0].mean_sm_clock_mhz = 1120;
  report.gpus[0].max_sm_clock_mhz = 1980;
  const std::string html = render_report_html(report, findings);
  const auto summary = html.find("<section class=\"summary\"");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_LT(summary, html.find("<section class=\"findings\""));
  EXPECT_LT(html.find("<section class=\"findings\""), html.find("<section class=\"gpus\""));
  EXPECT_LT(html.find("<section class=\"gpus\""), html.find("<section class=\"charts\""));
  EXPECT_LT(html.find("<section class=\"charts\""), html.find("<section class=\"clocks\""));
  EXPECT_LT(html.find("<section class=\"clocks\""), html.find("<section class=\"timeline\""));
  EXPECT_LT(html.find("<section class=\"timeline\""), html.find("<section class=\"processes\""));
  EXPECT_LT(html.find("<section class=\"processes\""), html.find("<section class=\"gpu-details\""));
  EXPECT_NE(html.find("GPU 0 spent 60 % of the 19.0s recorded thermally throttled; its SM clock averaged 1,120 of 1,980 MHz, "
                      "at up to 80 °C."),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"gpu-critical\">"), std::string::npos);
  EXPECT_NE(html.find("1,120 / 1,980 MHz"), std::string::npos);
}

TEST(ReportRender, DurationText) {
  EXPECT_EQ(report_duration_text(12.5), "12.5s");
  EXPECT_EQ(report_duration_text(185), "3m 05s");
  EXPECT_EQ(report_duration_text(3720), "1h 02m");
}

TEST(ReportRender, AVendorColumnOnlyWhenSomeGpuIsNotNvidias) {
  // issue 28: a report of NVIDIA GPUs alone reads as before; a mixed one names each GPU's vendor.
  auto report = sample_report();
  const std::string plain = render_report_text(report);
  EXPECT_EQ(plain.find("vendor"), std::string::npos) << plain;
  EXPECT_EQ(render_report_html(report).find(">vendor</th>"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_report_json(report))["gpus"][0]["vendor"], "nvidia");

  store::GpuSummary amd = report.gpus[0];
  amd.gpu.index = 1;
  amd.gpu.name = "AMD Instinct MI300X";
  amd.gpu.vendor = core::Vendor::Amd;
  report.gpus.push_back(amd);
  const std::string mixed = render_report_text(report);
  EXPECT_NE(mixed.find("gpu  vendor  name"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("1    amd     AMD Instinct MI300X"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("0    nvidia  NVIDIA <A100>"), std::string::npos) << mixed;
  auto json = nlohmann::json::parse(render_report_json(report));
  EXPECT_EQ(json["gpus"][0]["vendor"], "nvidia");
  EXPECT_EQ(json["gpus"][1]["vendor"], "amd");
  const std::string html = render_report_html(report);
  EXPECT_NE(html.find("<th scope=\"col\">vendor</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>amd</td>"), std::string::npos) << html.substr(html.find("gpu-table"), 1500);
}

}  // namespace
}  // namespace gpuwatch::report
