// `gpuwatch report -o FILE`: one self-contained HTML page. The charts are SVG drawn
// here (one line per GPU; a gap where a value is absent), with a few lines of inline
// script for a hover read-out. Nothing is loaded from the network.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "cli/record_time.hpp"
#include "cli/report_render.hpp"

namespace gpuwatch::cli {
namespace {

constexpr double kWidth = 900, kHeight = 220, kLeft = 60, kRight = 12, kTop = 12, kBottom = 28;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string escape(const std::string& text) {
  std::string out;
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

std::string time_text(std::int64_t ms) {
  return format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)));
}

using Metric = std::function<std::optional<double>(const store::ChartPoint&)>;

struct Chart {
  const char* title;
  const char* unit;
  Metric value;
  std::optional<double> fixed_max;
};

std::string svg_chart(const store::HistoryReport& report, const Chart& chart, std::int64_t t0, std::int64_t t1) {
  double max = chart.fixed_max.value_or(0);
  for (const auto& s : report.gpus) {
    for (const auto& p : s.chart) {
      if (auto v = chart.value(p)) max = std::max(max, *v);
    }
  }
  if (max <= 0) max = 1;
  const double span = std::max<double>(1, static_cast<double>(t1 - t0));
  auto x = [&](std::int64_t t) { return kLeft + (kWidth - kLeft - kRight) * static_cast<double>(t - t0) / span; };
  auto y = [&](double v) { return kTop + (kHeight - kTop - kBottom) * (1 - v / max); };
  std::string svg = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" data-t0=\"{2}\" data-t1=\"{3}\">\n",
      kWidth, kHeight, t0, t1);
  for (int i = 0; i <= 4; ++i) {
    const double v = max * i / 4;
    svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
                       "<text x=\"{}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"end\">{:.4g}</text>\n",
                       kLeft, kWidth - kRight, y(v), y(v), kLeft - 4, y(v) + 4, v);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{}</text><text x=\"{}\" y=\"{}\" class=\"axis\" "
                     "text-anchor=\"end\">{}</text>\n",
                     kLeft, kHeight - 8, escape(time_text(t0)), kWidth - kRight, kHeight - 8, escape(time_text(t1)));
  for (std::size_t g = 0; g < report.gpus.size(); ++g) {
    std::string points;
    auto flush = [&]() {
      if (!points.empty()) {
        svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                           kColors[g % 8], points);
      }
      points.clear();
    };
    for (const auto& p : report.gpus[g].chart) {
      auto v = chart.value(p);
      if (!v) {
        flush();
        continue;
      }
      points += fmt::format("{:.1f},{:.1f} ", x(p.time_ms), y(*v));
    }
    flush();
  }
  svg += fmt::format("<line class=\"cursor\" x1=\"-10\" x2=\"-10\" y1=\"{}\" y2=\"{}\"/></svg>\n", kTop, kHeight - kBottom);
  return svg;
}

// The chart data for the hover read-out: per chart, per GPU, [time, value|null] pairs.
std::string chart_data_json(const store::HistoryReport& report, const std::vector<Chart>& charts) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& chart : charts) {
    nlohmann::json per_gpu = nlohmann::json::array();
    for (const auto& s : report.gpus) {
      nlohmann::json series = nlohmann::json::array();
      for (const auto& p : s.chart) {
        auto v = chart.value(p);
        series.push_back({p.time_ms, v ? nlohmann::json(std::round(*v * 10) / 10) : nlohmann::json(nullptr)});
      }
      per_gpu.push_back(std::move(series));
    }
    data.push_back({{"unit", chart.unit}, {"series", std::move(per_gpu)}});
  }
  std::string text = data.dump();
  std::string safe;  // never "</script>" inside the script element
  for (char c : text) safe += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return safe;
}

// Tables of the text summary as HTML: "a  b  c" rows split on runs of 2+ spaces.
std::string html_table(const std::string& aligned_text) {
  std::string out = "<table>\n";
  std::size_t start = 0;
  bool header = true;
  while (start < aligned_text.size()) {
    std::size_t end = aligned_text.find('\n', start);
    if (end == std::string::npos) end = aligned_text.size();
    std::string line = aligned_text.substr(start, end - start);
    start = end + 1;
    out += "<tr>";
    std::size_t pos = 0;
    while (pos < line.size()) {
      std::size_t gap = line.find("  ", pos);
      std::string cell = line.substr(pos, gap == std::string::npos ? std::string::npos : gap - pos);
      out += header ? "<th>" + escape(cell) + "</th>" : "<td>" + escape(cell) + "</td>";
      if (gap == std::string::npos) break;
      pos = line.find_first_not_of(' ', gap);
      if (pos == std::string::npos) break;
    }
    out += "</tr>\n";
    header = false;
  }
  return out + "</table>\n";
}

const char* const kScript = R"JS(
document.querySelectorAll('svg.chart').forEach(function (svg, c) {
  var t0 = +svg.dataset.t0, t1 = +svg.dataset.t1, out = document.getElementById('readout' + c);
  var cursor = svg.querySelector('line.cursor');
  svg.addEventListener('mousemove', function (e) {
    var box = svg.getBoundingClientRect(), vx = (e.clientX - box.left) * 900 / box.width;
    var t = t0 + (t1 - t0) * (vx - 60) / (900 - 72);
    cursor.setAttribute('x1', vx); cursor.setAttribute('x2', vx);
    var text = new Date(t).toISOString();
    DATA[c].series.forEach(function (s, g) {
      var best = null;
      s.forEach(function (p) { if (best === null || Math.abs(p[0] - t) < Math.abs(best[0] - t)) best = p; });
      if (best) text += '   ' + GPUS[g] + ': ' + (best[1] === null ? 'N/A' : best[1] + ' ' + DATA[c].unit);
    });
    out.textContent = text;
  });
});
)JS";

}  // namespace

std::string render_report_html(const store::HistoryReport& report) {
  const std::vector<Chart> charts = {
      {"GPU utilization", "%", [](const store::ChartPoint& p) { return p.utilization_percent; }, 100.0},
      {"Memory used (peak per point)", "MiB",
       [](const store::ChartPoint& p) {
         return p.memory_used_bytes ? std::optional<double>(*p.memory_used_bytes / 1048576.0) : std::nullopt;
       },
       std::nullopt},
      {"Power draw", "W", [](const store::ChartPoint& p) { return p.power_w; }, std::nullopt},
      {"Temperature (peak per point)", "C", [](const store::ChartPoint& p) { return p.temperature_c; }, std::nullopt},
  };
  std::int64_t t0 = 0, t1 = 0;
  bool any = false;
  for (const auto& s : report.gpus) {
    t0 = any ? std::min(t0, s.first_ms) : s.first_ms;
    t1 = any ? std::max(t1, s.last_ms) : s.last_ms;
    any = true;
  }
  std::string text = render_report_text(report);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuwatch report</title>\n<style>\n"
      "body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
      "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}"
      ".grid{stroke:#e5e5e5}.axis{font-size:11px;fill:#555}.cursor{stroke:#888;stroke-dasharray:3}"
      ".readout{font-family:monospace;font-size:12px;min-height:1.2em}.key span{margin-right:1.5em}\n"
      "</style></head><body>\n<h1>gpuwatch report</h1>\n";
  std::size_t header_end = text.find('\n');
  html += "<p>" + escape(text.substr(0, header_end)) + "</p>\n";
  if (report.gpus.empty()) return html + "</body></html>\n";
  // The three tables of the text summary, in order.
  std::vector<std::string> sections;
  std::size_t pos = text.find("\n\n") + 2;
  while (pos < text.size()) {
    std::size_t end = text.find("\n\n", pos);
    sections.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1));
    if (end == std::string::npos) break;
    pos = end + 2;
  }
  const char* const titles[] = {"GPUs", "Time with clocks held back, by reason", "Processes seen"};
  for (std::size_t i = 0; i < sections.size() && i < 3; ++i) {
    std::string body = sections[i];
    if (i > 0) body = body.substr(body.find('\n') + 1);  // the text's own title line
    html += std::string("<h2>") + titles[i] + "</h2>\n" + html_table(body);
  }
  html += fmt::format("<p>idle: utilization below {:.0f} %.</p>\n", store::kIdleBelowPercent);
  html += "<h2>Charts</h2>\n<p class=\"key\">";
  nlohmann::json gpu_names = nlohmann::json::array();
  for (std::size_t g = 0; g < report.gpus.size(); ++g) {
    const auto& gpu = report.gpus[g].gpu;
    std::string label = "GPU " + (gpu.index ? std::to_string(*gpu.index) : std::string("?"));
    gpu_names.push_back(label);
    html += fmt::format("<span style=\"color:{}\">&#9632; {} {}</span>", kColors[g % 8], escape(label),
                        escape(gpu.name.value_or("")));
  }
  html += "</p>\n";
  for (std::size_t c = 0; c < charts.size(); ++c) {
    html += fmt::format("<h3>{} [{}]</h3>\n", charts[c].title, charts[c].unit) + svg_chart(report, charts[c], t0, t1) +
            fmt::format("<div class=\"readout\" id=\"readout{}\"></div>\n", c);
  }
  html += "<script>\nvar DATA = " + chart_data_json(report, charts) + ";\nvar GPUS = " + gpu_names.dump() + ";\n" +
          kScript + "</script>\n</body></html>\n";
  return html;
}

}  // namespace gpuwatch::cli
