#include "report/html_sections.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "core/read_error.hpp"  // core::to_string(Vendor)
#include "report/html_charts.hpp"  // html_escape
#include "report/render.hpp"       // report_duration_text
#include "report/summary.hpp"
#include "report/timeline.hpp"
#include "store/process_commands.hpp"  // clip_command

namespace gpuwatch::report {
namespace {

std::string cell(const std::string& text, const char* css_class = nullptr) {
  if (css_class == nullptr) return "<td>" + html_escape(text) + "</td>";
  return fmt::format("<td class=\"{}\">{}</td>", css_class, html_escape(text));
}

std::string gpu_name(const store::GpuSummary& s) {
  return s.gpu.index ? std::to_string(*s.gpu.index) : std::string("?");
}

std::string severity_class(const std::optional<diagnose::Severity>& severity) {
  return severity ? std::string("severity-") + diagnose::to_string(*severity) : std::string("severity-none");
}

std::string memory_text(const store::GpuSummary& s) {
  if (!s.peak_memory_used_bytes) return "N/A";
  std::string text = grouped_number(static_cast<double>(*s.peak_memory_used_bytes) / kMiB) + " MiB";
  if (s.memory_total_bytes && *s.memory_total_bytes > 0) {
    text += fmt::format(" ({:.0f} %)", 100.0 * static_cast<double>(*s.peak_memory_used_bytes) /
                                           static_cast<double>(*s.memory_total_bytes));
  }
  return text;
}

std::string clock_text(const store::GpuSummary& s) {
  if (!s.mean_sm_clock_mhz) return "N/A";
  if (!s.max_sm_clock_mhz) return grouped_number(*s.mean_sm_clock_mhz) + " MHz";
  return grouped_number(*s.mean_sm_clock_mhz) + " / " + grouped_number(*s.max_sm_clock_mhz) + " MHz";
}

std::string findings_cell(const std::optional<unsigned>& index, const ReportFindings& findings) {
  if (!findings.diagnosed) return "";
  if (!index) return "?";
  std::size_t count = 0;
  std::optional<diagnose::Severity> worst;
  for (const auto& f : findings.findings) {
    if (std::find(f.gpus.begin(), f.gpus.end(), *index) == f.gpus.end()) continue;
    ++count;
    if (!worst || f.severity > *worst) worst = f.severity;
  }
  if (count == 0) return "OK";
  return count == 1 ? diagnose::to_string(*worst) : fmt::format("{} ({})", diagnose::to_string(*worst), count);
}

}  // namespace

std::string summary_section_html(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  const auto lines = report_summary(report, findings, style);
  if (lines.empty()) return "";
  std::string html = "<section class=\"summary\" aria-labelledby=\"summary-title\">\n"
                     "<h2 id=\"summary-title\">Summary</h2>\n<ul class=\"summary-list\">\n";
  for (const auto& line : lines) {
    html += fmt::format("<li class=\"summary-line {}\">{}</li>\n", severity_class(line.severity), html_escape(line.text));
  }
  return html + "</ul>\n</section>\n";
}

std::string gpu_table_html(const store::HistoryReport& report, const ReportFindings& findings) {
  const auto worst = worst_severity_by_gpu(findings.findings);
  std::string html = "<section class=\"gpus\" aria-labelledby=\"gpus-title\">\n<h2 id=\"gpus-title\">GPUs</h2>\n"
                     "<div class=\"table-scroll\"><table class=\"gpu-table\">\n<thead><tr><th scope=\"col\">GPU</th>"
                     "<th scope=\"col\">name</th>";
  // A vendor column where a GPU is not NVIDIA's (as the text report's table, issue 28).
  const bool name_vendors = std::any_of(report.gpus.begin(), report.gpus.end(),
                                        [](const store::GpuSummary& s) { return s.gpu.vendor != core::Vendor::Nvidia; });
  if (name_vendors) html += "<th scope=\"col\">vendor</th>";
  if (findings.diagnosed) html += "<th scope=\"col\">findings</th>";
  html += "<th scope=\"col\">util mean</th><th scope=\"col\">util p95</th><th scope=\"col\">idle</th>"
          "<th scope=\"col\">peak memory</th><th scope=\"col\">SM clock mean / max</th>"
          "<th scope=\"col\">clocks held back</th><th scope=\"col\">max temp</th><th scope=\"col\">power mean</th>"
          "<th scope=\"col\">energy</th></tr></thead>\n<tbody>\n";
  for (const auto& s : report.gpus) {
    std::string row_class;
    if (const auto it = s.gpu.index ? worst.find(*s.gpu.index) : worst.end();
        it != worst.end() && it->second != diagnose::Severity::Info) {
      row_class = std::string(" class=\"gpu-") + diagnose::to_string(it->second) + "\"";
    }
    html += "<tr" + row_class + "><th scope=\"row\">" + html_escape(gpu_name(s)) + "</th>" +
            cell(s.gpu.name.value_or("?"));
    if (name_vendors) html += cell(core::to_string(s.gpu.vendor));
    if (findings.diagnosed) html += cell(findings_cell(s.gpu.index, findings), "findings-cell");
    html += cell(s.mean_utilization_percent ? fmt::format("{:.1f} %", *s.mean_utilization_percent) : "N/A", "num");
    html += cell(s.p95_utilization_percent ? fmt::format("{}{:.0f} %", s.p95_approximate ? "~" : "",
                                                         *s.p95_utilization_percent)
                                           : "N/A",
                 "num");
    html += cell(s.idle_share ? fmt::format("{:.1f} %", *s.idle_share * 100) : "N/A", "num");
    html += cell(memory_text(s), "num") + cell(clock_text(s), "num");
    html += cell(s.held_back_share ? share_text(*s.held_back_share) : "N/A", "num");
    html += cell(temperature_text(s.max_temperature_c), "num");
    html += cell(s.mean_power_w ? fmt::format("{:.0f} W", *s.mean_power_w) : "N/A", "num");
    html += cell(energy_text(s.energy_kwh, s.energy_source == "estimated"), "num") + "</tr>\n";
  }
  html += "</tbody></table></div>\n";
  html += fmt::format("<p class=\"hint\">idle: utilization below {:.0f} %. Clocks held back: samples with a thermal "
                      "slowdown, power cap, power brake or hardware slowdown reason active.{}</p>\n</section>\n",
                      store::kIdleBelowPercent,
                      std::any_of(report.gpus.begin(), report.gpus.end(), [](const auto& s) { return s.energy_source == "estimated"; })
                          ? " ~energy: estimated from power samples (no energy counter)."
                          : "");
  return html;
}

std::string throttle_table_html(const store::HistoryReport& report) {
  std::string html = "<table class=\"throttle-table\">\n<thead><tr><th scope=\"col\">GPU</th>"
                     "<th scope=\"col\">time with clocks held back, by reason (share of its samples)</th></tr></thead>\n"
                     "<tbody>\n";
  for (const auto& s : report.gpus) {
    std::string reasons;
    if (!s.throttle_mask_recorded) {
      reasons = "N/A (not recorded)";
    } else if (s.throttling.empty()) {
      reasons = "none";
    }
    for (const auto& t : s.throttling) {
      reasons += (reasons.empty() ? "" : "; ") +
                 fmt::format("{} {} ({})", t.reason, report_duration_text(t.seconds),
                             share_text(static_cast<double>(t.samples) / static_cast<double>(std::max<std::int64_t>(1, s.samples))));
    }
    html += "<tr><th scope=\"row\">" + html_escape(gpu_name(s)) + "</th>" + cell(reasons) + "</tr>\n";
  }
  return html + "</tbody></table>\n";
}

std::string timeline_section_html(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  std::size_t more = 0;
  const auto events = report_timeline(report, findings, 200, &more);
  std::string html = "<section class=\"timeline\" aria-labelledby=\"timeline-title\">\n"
                     "<h2 id=\"timeline-title\">Events</h2>\n";
  if (events.empty()) {
    return html + "<p class=\"hint\">No Xid, ECC, lost-GPU or alert event and no warning in this range.</p>\n"
                  "</section>\n";
  }
  html += "<table class=\"timeline-table\">\n<thead><tr><th scope=\"col\">time</th><th scope=\"col\">GPU</th>"
          "<th scope=\"col\">kind</th><th scope=\"col\">event</th></tr></thead>\n<tbody>\n";
  for (const auto& e : events) {
    std::string gpus;
    for (unsigned g : e.gpus) gpus += (gpus.empty() ? "" : ",") + std::to_string(g);
    html += fmt::format("<tr class=\"event event-{} {}\" data-kind=\"{}\">", html_escape(e.kind),
                        severity_class(e.severity), html_escape(e.kind));
    html += cell(time_text(e.time_ms, style), "time") + cell(gpus.empty() ? "node" : gpus) + cell(e.kind) + cell(e.text);
    html += "</tr>\n";
  }
  html += "</tbody></table>\n";
  if (more > 0) html += fmt::format("<p class=\"hint\">... and {} later events.</p>\n", more);
  return html + "</section>\n";
}

std::string processes_section_html(const store::HistoryReport& report, TimeStyle style) {
  std::string html = "<section class=\"processes\" aria-labelledby=\"processes-title\">\n"
                     "<h2 id=\"processes-title\">Processes</h2>\n";
  if (report.processes.empty()) return html + "<p class=\"hint\">No GPU process seen in this range.</p>\n</section>\n";
  html += "<div class=\"table-scroll\"><table class=\"process-table\">\n<thead><tr><th scope=\"col\">GPU</th>"
          "<th scope=\"col\">PID</th><th scope=\"col\">user</th><th scope=\"col\">process</th>"
          "<th scope=\"col\">peak memory</th><th scope=\"col\">run time</th><th scope=\"col\">first seen</th></tr>"
          "</thead>\n<tbody>\n";
  for (const auto& p : report.processes) {
    // The recorded command line (schema 11), else NVML's name (older files, --no-record-commands).
    const std::string command = p.command ? *p.command : p.name.empty() ? "?" : p.name;
    const std::string shown = store::clip_command(command, store::kCommandShownBytes);  // on a UTF-8 boundary
    html += "<tr>" + cell(p.gpu_index ? std::to_string(*p.gpu_index) : "?", "num") + cell(std::to_string(p.pid), "num") +
            cell(p.user.value_or("?"));
    html += fmt::format("<td class=\"command\" title=\"{}\"><code>{}</code></td>", html_escape(command), html_escape(shown));
    html += cell(p.max_used_memory_bytes
                     ? grouped_number(static_cast<double>(*p.max_used_memory_bytes) / kMiB) + " MiB"
                     : std::string("N/A"),
                 "num");
    html += cell(report_duration_text(static_cast<double>(p.last_seen_ms - p.first_seen_ms) / 1000.0), "num");
    html += cell(time_text(p.first_seen_ms, style), "time") + "</tr>\n";
  }
  return html + "</tbody></table></div>\n</section>\n";
}

}  // namespace gpuwatch::report
