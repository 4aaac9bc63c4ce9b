#include "report/findings.hpp"
#include "core/sink_text.hpp"
#include "core/json_text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include "diagnose/finding_json.hpp"
#include "diagnose/finding_text.hpp"
#include "report/html_charts.hpp"  // html_escape
#include "report/render.hpp"       // report_duration_text

namespace gpuwatch::report {
namespace {

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// "2026-11-30 07:41:46 – 07:47:41 (5m 55s), still active at the end"
std::string span_text(const diagnose::Finding& f, TimeStyle style) {
  const double seconds = std::chrono::duration<double>(f.end - f.start).count();
  // A problem that came and went (grouped findings, issue 23): how many times, over what span.
  const std::string episodes = f.episodes.size() > 1 ? fmt::format("{} episodes over ", f.episodes.size()) : "";
  return fmt::format("{} ({}{}){}", report::span_text(unix_ms(f.start), unix_ms(f.end), style), episodes,
                     report_duration_text(std::max(0.0, seconds)), f.active ? ", still active at the end" : ", ended");
}

std::string impact_text(const diagnose::Finding& f) {
  if (!f.impact) return "";
  return fmt::format("about {:.0f} % of the GPU's time or throughput lost", *f.impact * 100);
}

std::string count_text(std::size_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

std::string severity_counts(std::span<const diagnose::Finding> findings) {
  std::size_t n[3] = {0, 0, 0};
  for (const auto& f : findings) ++n[static_cast<int>(f.severity)];
  std::vector<std::string> parts;
  if (n[2]) parts.push_back(fmt::format("{} critical", n[2]));
  if (n[1]) parts.push_back(count_text(n[1], "warning"));
  if (n[0]) parts.push_back(fmt::format("{} info", n[0]));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string none_text(const ReportFindings& r) {
  if (r.samples == 0) {
    return "No findings: no raw samples in this range to diagnose (findings need raw samples; older history "
           "keeps only rollups).";
  }
  return fmt::format("No findings: the GPUs look healthy over the {} diagnosed samples.", r.samples);
}

}  // namespace

std::string findings_gpu_text(const std::vector<unsigned>& gpus) {
  if (gpus.empty()) return "node";
  std::string out = gpus.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

std::map<unsigned, diagnose::Severity> worst_severity_by_gpu(std::span<const diagnose::Finding> findings) {
  std::map<unsigned, diagnose::Severity> out;
  for (const auto& f : findings) {
    for (unsigned gpu : f.gpus) {
      auto [it, inserted] = out.emplace(gpu, f.severity);
      if (!inserted && f.severity > it->second) it->second = f.severity;
    }
  }
  return out;
}

std::string report_findings_text(const ReportFindings& r, std::size_t limit, TimeStyle style) {
  if (!r.diagnosed) return "";
  if (r.findings.empty()) return none_text(r) + "\n";
  const auto ordered = diagnose::worst_first(r.findings);
  std::string out = fmt::format("Findings ({}: {}), worst first:\n", ordered.size(), severity_counts(ordered));
  const std::string indent(10, ' ');
  std::size_t shown = 0;
  for (const auto& f : ordered) {
    if (shown++ == limit) break;
    out += fmt::format("{:<9} {:<6} {}\n", upper(diagnose::to_string(f.severity)), findings_gpu_text(f.gpus),
                       core::terminal_text(f.summary.empty() ? f.kind : f.summary));
    if (const auto impact = impact_text(f); !impact.empty()) out += indent + "impact: " + impact + "\n";
    out += indent + "when:   " + span_text(f, style) + "\n";
    if (!f.detail.empty()) out += indent + "why:    " + core::terminal_text(f.detail) + "\n";
    for (const auto& advice : f.advice) out += indent + "try:    " + core::terminal_text(advice) + "\n";
    out += indent + "kind:   " + f.kind + "\n";
  }
  if (ordered.size() > limit) {
    out += fmt::format("... and {} more (all of them: gpuwatch history --findings, or --format json)\n",
                       ordered.size() - limit);
  }
  return out;
}

std::string report_findings_html(const ReportFindings& r, std::size_t limit, TimeStyle style) {
  if (!r.diagnosed) return "";
  std::string html = "<section class=\"findings\" aria-labelledby=\"findings-title\">\n"
                     "<h2 id=\"findings-title\">Findings</h2>\n";
  if (r.findings.empty()) {
    return html + "<p class=\"no-findings\">" + html_escape(none_text(r)) + "</p>\n</section>\n";
  }
  const auto ordered = diagnose::worst_first(r.findings);
  html += "<p class=\"hint\">" + html_escape(fmt::format("{}, worst first: why a GPU was underused or unhealthy, "
                                                         "and what to try.", severity_counts(ordered))) +
          "</p>\n<ol class=\"finding-list\">\n";
  std::size_t shown = 0;
  for (const auto& f : ordered) {
    if (shown++ == limit) break;
    const std::string severity = diagnose::to_string(f.severity);
    html += fmt::format("<li class=\"finding severity-{0}\" data-kind=\"{1}\" data-severity=\"{0}\">\n"
                        "<div class=\"finding-head\"><span class=\"severity-badge severity-{0}\">{2}</span> "
                        "<strong class=\"finding-gpus\">{3}</strong> <span class=\"finding-summary\">{4}</span></div>\n",
                        severity, html_escape(f.kind), upper(severity), html_escape(findings_gpu_text(f.gpus)),
                        html_escape(f.summary.empty() ? f.kind : f.summary));
    html += "<dl class=\"finding-facts\">\n";
    if (const auto impact = impact_text(f); !impact.empty()) {
      html += "<dt>impact</dt><dd class=\"finding-impact\">" + html_escape(impact) + "</dd>\n";
    }
    html += "<dt>when</dt><dd>" + html_escape(span_text(f, style)) + "</dd>\n</dl>\n";
    // Why, the kind and what to try: one click away.
    html += "<details class=\"finding-more\"><summary>why, and what to try</summary>\n<dl class=\"finding-facts\">\n";
    if (!f.detail.empty()) html += "<dt>why</dt><dd>" + html_escape(f.detail) + "</dd>\n";
    html += "<dt>kind</dt><dd><code>" + html_escape(f.kind) + "</code></dd>\n</dl>\n";
    if (!f.advice.empty()) {
      html += "<p class=\"advice-title\">What to try:</p>\n<ul class=\"finding-advice\">\n";
      for (const auto& advice : f.advice) html += "<li>" + html_escape(advice) + "</li>\n";
      html += "</ul>\n";
    }
    html += "</details>\n</li>\n";
  }
  html += "</ol>\n";
  if (ordered.size() > limit) {
    html += "<p class=\"hint\">" +
            html_escape(fmt::format("... and {} more: gpuwatch history --findings lists them all.", ordered.size() - limit)) +
            "</p>\n";
  }
  return html + "</section>\n";
}

nlohmann::ordered_json report_findings_json(std::span<const diagnose::Finding> findings) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& f : diagnose::worst_first(findings)) {
    out.push_back(nlohmann::ordered_json::parse(core::json_text(diagnose::to_json(f))));
  }
  return out;
}

}  // namespace gpuwatch::report
