#include "report/html_charts.hpp"
#include "core/sink_text.hpp"
#include "core/json_text.hpp"

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
  Metric value;
};

const std::vector<ChartSpec>& chart_specs() {
  static const std::vector<ChartSpec> specs = {
      {kReportChartSeries[0], "GPU utilization", "%", 0, 100.0,
       [](const store::ChartPoint& p) { return p.utilization_percent; }},
      {kReportChartSeries[1], "Memory used (peak per point)", "MiB", 0, std::nullopt,
       [](const store::ChartPoint& p) {
         return p.memory_used_bytes ? std::optional<double>(*p.memory_used_bytes / 1048576.0) : std::nullopt;
       }},
      {kReportChartSeries[2], "Temperature (peak per point)", "°C", 0, std::nullopt,
       [](const store::ChartPoint& p) { return p.temperature_c; }},
      {kReportChartSeries[3], "Power draw", "W", 0, std::nullopt, [](const store::ChartPoint& p) { return p.power_w; }},
      {kReportChartSeries[4], "SM clock", "MHz", 0, std::nullopt,
       [](const store::ChartPoint& p) { return p.sm_clock_mhz; }},
      {kReportChartSeries[5], "Clocks held back (thermal, power)", "% of samples", 0, 100.0,
       [](const store::ChartPoint& p) {
         return p.held_back_share ? std::optional<double>(*p.held_back_share * 100.0) : std::nullopt;
       }},
  };
  return specs;
}

std::string chart_gpu_label(const store::GpuSummary& s) {
  return "GPU " + (s.gpu.index ? std::to_string(*s.gpu.index) : std::string("?"));
}

std::optional<diagnose::Severity> marked(const store::GpuSummary& s, const std::map<unsigned, diagnose::Severity>& worst) {
  const auto it = s.gpu.index ? worst.find(*s.gpu.index) : worst.end();
  if (it == worst.end() || it->second == diagnose::Severity::Info) return std::nullopt;
  return it->second;
}

}  // namespace

std::string html_escape(std::string_view given) {
  // Controls and bytes that are not UTF-8 shown visibly first, as on a terminal (issue 31): the
  // page stays valid UTF-8 and a copied GPU name or command carries no escape sequence.
  const std::string text = core::terminal_lines(given);  // the LFs of a <pre> block kept
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

std::string report_chart_data_json(const store::HistoryReport& report,
                                   const std::map<unsigned, diagnose::Severity>& worst, bool utc) {
  nlohmann::json charts = nlohmann::json::array();
  for (const auto& spec : chart_specs()) {
    charts.push_back({{"key", spec.key}, {"title", spec.title}, {"unit", spec.unit}, {"decimals", spec.decimals},
                      {"max", spec.max ? nlohmann::json(*spec.max) : nlohmann::json(nullptr)}});
  }
  // One time axis for every GPU: the union of their bucket starts, in order.
  std::map<std::int64_t, std::size_t> slot;
  for (const auto& s : report.gpus) {
    for (const auto& p : s.chart) slot.emplace(p.time_ms, 0);
  }
  nlohmann::json times = nlohmann::json::array();
  std::size_t n = 0;
  for (auto& [time_ms, index] : slot) {
    index = n++;
    times.push_back(static_cast<double>(time_ms) / 1000.0);
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& s : report.gpus) {
    nlohmann::json series = nlohmann::json::object();
    for (const auto& spec : chart_specs()) {
      std::vector<nlohmann::json> values(n, nullptr);
      for (const auto& p : s.chart) {
        if (auto v = spec.value(p)) values[slot[p.time_ms]] = std::round(*v * 10) / 10;
      }
      series[std::string(spec.key)] = std::move(values);
    }
    const auto severity = marked(s, worst);
    gpus.push_back({{"label", chart_gpu_label(s)},
                    {"index", s.gpu.index ? nlohmann::json(*s.gpu.index) : nlohmann::json(nullptr)},
                    {"severity", severity ? nlohmann::json(diagnose::to_string(*severity)) : nlohmann::json(nullptr)},
                    {"series", std::move(series)}});
  }
  return core::json_text(
      nlohmann::json{{"charts", std::move(charts)}, {"time_s", std::move(times)}, {"utc", utc}, {"gpus", std::move(gpus)}});
}

std::string node_charts_html(std::span<const std::string_view> keys) {
  std::string html = "<div class=\"chart-grid\">\n";
  for (const auto key : keys) html += fmt::format("<div class=\"chart node-chart\" data-series=\"{}\"></div>\n", key);
  return html + "</div>\n";
}

std::string gpu_details_html(const store::HistoryReport& report, const std::map<unsigned, diagnose::Severity>& worst) {
  std::string html;
  for (std::size_t g = 0; g < report.gpus.size(); ++g) {
    const auto& s = report.gpus[g];
    std::string mark_class, badge;
    if (const auto severity = marked(s, worst)) {
      const std::string name = diagnose::to_string(*severity);
      mark_class = " gpu-" + name;
      badge = fmt::format(" <span class=\"severity-badge severity-{}\">{}</span>", name,
                          *severity == diagnose::Severity::Critical ? "CRITICAL" : "WARNING");
    }
    html += fmt::format("<details class=\"gpu-detail{}\" data-gpu=\"{}\"><summary><h3>{} &middot; {}{}{}</h3></summary>\n"
                        "<div class=\"chart-grid\">\n",
                        mark_class, g, html_escape(chart_gpu_label(s)), html_escape(s.gpu.name.value_or("unknown GPU")),
                        s.gpu.uuid ? " &middot; <span class=\"uuid\">" + html_escape(*s.gpu.uuid) + "</span>" : std::string(),
                        badge);
    for (const auto& spec : chart_specs()) {
      html += fmt::format("<div class=\"chart\" data-gpu=\"{}\" data-series=\"{}\"></div>\n", g, spec.key);
    }
    html += "</div></details>\n";
  }
  return html;
}

std::string report_chart_scripts(const store::HistoryReport& report,
                                 const std::map<unsigned, diagnose::Severity>& worst, bool utc) {
  std::string html = "<noscript><p>The charts are drawn by JavaScript (uPlot, inlined in this file); the tables hold "
                     "the figures.</p></noscript>\n";
  html += "<script type=\"application/json\" id=\"gpuwatch-report-data\">" +
          web::script_safe_json(report_chart_data_json(report, worst, utc)) + "</script>\n";
  html += "<!-- uPlot " + std::string(web::uplot_version()) + " (https://github.com/leeoniya/uPlot), MIT license:\n" +
          html_escape(web::asset(web::kUplotLicense)) + "-->\n";
  html += web::inline_script(web::asset(web::kUplotScript));
  html += web::inline_script(web::asset(web::kReportChartsScript));
  return html;
}

}  // namespace gpuwatch::report
