#include "report/html_charts.hpp"

#include <fmt/core.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "web/web_assets.hpp"

namespace gpuwatch::report {
namespace {

using Metric = std::function<std::optional<double>(const store::ChartPoint&)>;

struct ChartSpec {
  std::string_view key;
  const char* title;
  const char* unit;
  int decimals;
  std::optional<double> max;  // a fixed top of the y axis (percent); else the data's
  const char* color;
  Metric value;
};

const std::vector<ChartSpec>& chart_specs() {
  static const std::vector<ChartSpec> specs = {
      {kReportChartSeries[0], "GPU utilization", "%", 0, 100.0, "#1f77b4",
       [](const store::ChartPoint& p) { return p.utilization_percent; }},
      {kReportChartSeries[1], "Memory used (peak per point)", "MiB", 0, std::nullopt, "#9467bd",
       [](const store::ChartPoint& p) {
         return p.memory_used_bytes ? std::optional<double>(*p.memory_used_bytes / 1048576.0) : std::nullopt;
       }},
      {kReportChartSeries[2], "Temperature (peak per point)", "C", 0, std::nullopt, "#d62728",
       [](const store::ChartPoint& p) { return p.temperature_c; }},
      {kReportChartSeries[3], "Power draw", "W", 1, std::nullopt, "#ff7f0e",
       [](const store::ChartPoint& p) { return p.power_w; }},
  };
  return specs;
}

std::string gpu_label(const store::GpuSummary& s) {
  return "GPU " + (s.gpu.index ? std::to_string(*s.gpu.index) : std::string("?"));
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string report_chart_data_json(const store::HistoryReport& report) {
  nlohmann::json charts = nlohmann::json::array();
  for (const auto& spec : chart_specs()) {
    charts.push_back({{"key", spec.key}, {"title", spec.title}, {"unit", spec.unit}, {"decimals", spec.decimals},
                      {"max", spec.max ? nlohmann::json(*spec.max) : nlohmann::json(nullptr)}, {"color", spec.color}});
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& s : report.gpus) {
    nlohmann::json times = nlohmann::json::array();
    for (const auto& p : s.chart) times.push_back(static_cast<double>(p.time_ms) / 1000.0);
    nlohmann::json series = nlohmann::json::object();
    for (const auto& spec : chart_specs()) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& p : s.chart) {
        auto v = spec.value(p);
        values.push_back(v ? nlohmann::json(std::round(*v * 10) / 10) : nlohmann::json(nullptr));
      }
      series[std::string(spec.key)] = std::move(values);
    }
    gpus.push_back({{"label", gpu_label(s)}, {"time_s", std::move(times)}, {"series", std::move(series)}});
  }
  return nlohmann::json{{"charts", std::move(charts)}, {"gpus", std::move(gpus)}}.dump();
}

std::string report_charts_section(const store::HistoryReport& report,
                                  const std::map<unsigned, diagnose::Severity>& worst) {
  std::string html =
      "<h2>Charts</h2>\n<p class=\"hint\">Drag across a chart to zoom in on a time range (every chart follows); "
      "double-click to zoom out. Gaps are times with no value recorded.</p>\n"
      "<noscript><p>The charts are drawn by JavaScript (uPlot, inlined in this file); the tables above hold "
      "the figures.</p></noscript>\n";
  for (std::size_t g = 0; g < report.gpus.size(); ++g) {
    const auto& s = report.gpus[g];
    std::string mark_class, badge;
    if (const auto it = s.gpu.index ? worst.find(*s.gpu.index) : worst.end();
        it != worst.end() && it->second != diagnose::Severity::Info) {
      const std::string severity = diagnose::to_string(it->second);
      mark_class = " gpu-" + severity;
      badge = fmt::format(" <span class=\"severity-badge severity-{}\">{}</span>", severity,
                          it->second == diagnose::Severity::Critical ? "CRITICAL" : "WARNING");
    }
    html += fmt::format("<section class=\"gpu-charts{}\"><h3>{} &middot; {}{}{}</h3>\n<div class=\"chart-grid\">\n",
                        mark_class, html_escape(gpu_label(s)), html_escape(s.gpu.name.value_or("unknown GPU")),
                        s.gpu.uuid ? " &middot; " + html_escape(*s.gpu.uuid) : std::string(), badge);
    for (const auto& spec : chart_specs()) {
      html += fmt::format("<div class=\"chart\" data-gpu=\"{}\" data-series=\"{}\"></div>\n", g, spec.key);
    }
    html += "</div></section>\n";
  }
  html += "<script type=\"application/json\" id=\"gpuwatch-report-data\">" +
          web::script_safe_json(report_chart_data_json(report)) + "</script>\n";
  html += "<!-- uPlot " + std::string(web::uplot_version()) + " (https://github.com/leeoniya/uPlot), MIT license:\n" +
          html_escape(web::asset(web::kUplotLicense)) + "-->\n";
  html += web::inline_script(web::asset(web::kUplotScript));
  html += web::inline_script(web::asset(web::kReportChartsScript));
  return html;
}

}  // namespace gpuwatch::report
