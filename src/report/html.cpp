// `gpuwatch report -o FILE`: one self-contained HTML page, trouble first: the summary in
// words, the findings, the GPU table, node charts with every GPU overlaid, clocks and
// throttle reasons, the event timeline, the processes, then each GPU's own charts collapsed.
// uPlot, its stylesheet and our scripts are built into the binary (src/web) and inlined
// here: nothing is loaded from the network.
#include <fmt/core.h>

#include <algorithm>

#include "report/html_charts.hpp"
#include "report/html_sections.hpp"
#include "report/job_block.hpp"
#include "report/owner_block.hpp"
#include "report/render.hpp"
#include "web/web_assets.hpp"

namespace gpuwatch::report {
namespace {

// "8 GPUs · 2026-11-30 08:00:00 – 08:06:00 (UTC) · a sample every 1 s"
std::string range_line(const store::HistoryReport& report, TimeStyle style) {
  std::int64_t first = report.gpus.front().first_ms, last = report.gpus.front().last_ms;
  std::optional<double> interval;
  for (const auto& s : report.gpus) {
    first = std::min(first, s.first_ms);
    last = std::max(last, s.last_ms);
    if (s.sample_interval_s) interval = std::min(interval.value_or(*s.sample_interval_s), *s.sample_interval_s);
  }
  std::string line = fmt::format("{} GPU{} &middot; {} ({})", report.gpus.size(), report.gpus.size() == 1 ? "" : "s",
                                 html_escape(span_text(first, last, style)), html_escape(zone_text(first, style)));
  if (interval) line += fmt::format(" &middot; a sample every {}", html_escape(report_duration_text(*interval)));
  return line;
}

}  // namespace

std::string render_report_html(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                     "<meta name=\"color-scheme\" content=\"light dark\">"
                     "<title>gpuwatch report</title>\n" +
                     web::inline_style(web::asset(web::kUplotStyle)) + web::inline_style(web::asset(web::kReportStyle)) +
                     "</head><body>\n<main>\n<h1>gpuwatch report</h1>\n";
  if (report.job) html += job_block_html(*report.job);  // report --job: its block, its boundaries for the charts
  if (report.owner) html += owner_block_html(*report.owner, style);  // report --slurm-job, --pod: the same
  if (const auto note = store::provenance_note(report.provenance); !note.empty()) {
    html += "<p class=\"simulated-banner\" role=\"note\">" + html_escape(note) + "</p>\n";
  }
  if (report.gpus.empty()) return html + "<p class=\"range\">No samples in this range.</p>\n</main></body></html>\n";
  html += "<p class=\"range\">" + range_line(report, style) + "</p>\n";
  if (const auto note = report_sources_note(report); !note.empty()) html += "<p class=\"hint\">" + html_escape(note) + "</p>\n";
  // Trouble first: the summary in words, the findings (issue 10), the GPU table.
  html += summary_section_html(report, findings, style);
  html += report_findings_html(findings, kReportFindingsShown, style);
  html += gpu_table_html(report, findings);
  const auto worst = worst_severity_by_gpu(findings.findings);
  html += "<section class=\"charts\" aria-labelledby=\"charts-title\">\n<h2 id=\"charts-title\">Charts</h2>\n"
          "<p class=\"hint\">Every GPU on each chart; a GPU with a warning or critical finding is drawn thicker. Hover a "
          "line to pick it out; drag to zoom in (every chart follows), double-click to zoom out. Gaps are times with no "
          "value recorded.</p>\n" +
          node_charts_html(kNodeChartSeries) + "</section>\n";
  html += "<section class=\"clocks\" aria-labelledby=\"clocks-title\">\n<h2 id=\"clocks-title\">Clocks and throttle "
          "reasons</h2>\n" +
          node_charts_html(kClockChartSeries) + throttle_table_html(report) + "</section>\n";
  html += timeline_section_html(report, findings, style);
  html += processes_section_html(report, style);
  html += "<section class=\"gpu-details\" aria-labelledby=\"details-title\">\n<h2 id=\"details-title\">Each GPU</h2>\n"
          "<p class=\"hint\">Open a GPU for its own charts.</p>\n" +
          gpu_details_html(report, worst) + "</section>\n";
  return html + report_chart_scripts(report, worst, style.utc) + "</main></body></html>\n";
}

}  // namespace gpuwatch::report
