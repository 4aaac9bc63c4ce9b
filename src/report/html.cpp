// `gpuwatch report -o FILE`: one self-contained HTML page: the summary tables, then
// interactive charts per GPU drawn by uPlot (report_html_charts.cpp). uPlot, its
// stylesheet and our scripts are built into the binary (src/web) and inlined here:
// nothing is loaded from the network.
#include <fmt/core.h>

#include <functional>

#include "report/html_charts.hpp"
#include "report/render.hpp"
#include "web/web_assets.hpp"

namespace gpuwatch::report {
namespace {

// Tables of the text summary as HTML: "a  b  c" rows split on runs of 2+ spaces. ROW_CLASS
// (optional) gives a data row a class attribute, from its first cell ("" for none).
std::string html_table(const std::string& aligned_text,
                       const std::function<std::string(const std::string&)>& row_class = {}) {
  std::string out = "<table>\n";
  std::size_t start = 0;
  bool header = true;
  while (start < aligned_text.size()) {
    std::size_t end = aligned_text.find('\n', start);
    if (end == std::string::npos) end = aligned_text.size();
    std::string line = aligned_text.substr(start, end - start);
    start = end + 1;
    std::string css_class;
    if (!header && row_class) css_class = row_class(line.substr(0, line.find("  ")));
    out += css_class.empty() ? "<tr>" : "<tr class=\"" + html_escape(css_class) + "\">";
    std::size_t pos = 0;
    while (pos < line.size()) {
      std::size_t gap = line.find("  ", pos);
      std::string cell = line.substr(pos, gap == std::string::npos ? std::string::npos : gap - pos);
      out += header ? "<th>" + html_escape(cell) + "</th>" : "<td>" + html_escape(cell) + "</td>";
      if (gap == std::string::npos) break;
      pos = line.find_first_not_of(' ', gap);
      if (pos == std::string::npos) break;
    }
    out += "</tr>\n";
    header = false;
  }
  return out + "</table>\n";
}

}  // namespace

std::string render_report_html(const store::HistoryReport& report, const ReportFindings& findings) {
  std::string text = render_report_text(report);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                     "<title>gpuwatch report</title>\n" +
                     web::inline_style(web::asset(web::kUplotStyle)) + web::inline_style(web::asset(web::kReportStyle)) +
                     "</head><body>\n<h1>gpuwatch report</h1>\n";
  std::size_t header_end = text.find('\n');
  if (const auto note = store::provenance_note(report.provenance); !note.empty()) {
    html += "<p class=\"simulated-banner\" role=\"note\" style=\"background:#fff3cd;border:1px solid #d39e00;"
            "padding:.5em .8em;font-weight:bold\">" + html_escape(note) + "</p>\n";
  }
  html += "<p>" + html_escape(text.substr(0, header_end)) + "</p>\n";
  if (const auto note = report_sources_note(report); !note.empty()) html += "<p>" + html_escape(note) + "</p>\n";
  if (report.gpus.empty()) return html + "</body></html>\n";
  // Findings first (issue 10), above the tables and the charts.
  html += report_findings_html(findings);
  // The three tables of the text summary, in order; a GPU row with a warning or critical
  // finding is marked (class gpu-warning / gpu-critical).
  const auto worst = worst_severity_by_gpu(findings.findings);
  auto gpu_row_class = [&worst](const std::string& first_cell) -> std::string {
    if (first_cell.empty() || first_cell.find_first_not_of("0123456789") != std::string::npos) return "";
    const auto it = worst.find(static_cast<unsigned>(std::stoul(first_cell)));
    if (it == worst.end() || it->second == diagnose::Severity::Info) return "";
    return std::string("gpu-") + diagnose::to_string(it->second);
  };
  const std::string tables = report_tables_text(report, findings);
  std::vector<std::string> sections;
  std::size_t pos = tables.find_first_not_of('\n');
  while (pos != std::string::npos && pos < tables.size()) {
    std::size_t end = tables.find("\n\n", pos);
    sections.push_back(tables.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1));
    if (end == std::string::npos) break;
    pos = end + 2;
  }
  const char* const titles[] = {"GPUs", "Time with clocks held back, by reason", "Processes seen"};
  for (std::size_t i = 0; i < sections.size() && i < 3; ++i) {
    std::string body = sections[i];
    if (i > 0) body = body.substr(body.find('\n') + 1);  // the text's own title line
    html += std::string("<h2>") + titles[i] + "</h2>\n" +
            html_table(body, i == 0 ? std::function<std::string(const std::string&)>(gpu_row_class) : nullptr);
  }
  html += fmt::format("<p>idle: utilization below {:.0f} %.</p>\n", store::kIdleBelowPercent);
  return html + report_charts_section(report, worst) + "</body></html>\n";
}

}  // namespace gpuwatch::report
