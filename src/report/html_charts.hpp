#pragma once
// Pieces of the HTML report (html.cpp): the interactive charts, drawn in the browser by uPlot
// (built into the binary, src/web) from the chart buckets embedded as JSON in the page.
// Node charts overlay every GPU (one series per GPU, a colour-blind-safe palette, a GPU with a
// warning or critical finding drawn thicker); each GPU's own charts sit in a collapsed
// <details>, drawn when opened.
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "diagnose/finding.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

// TEXT with & < > " as HTML entities, its controls (but LF) and invalid UTF-8 shown visibly
// (core::terminal_lines, issue 31).
std::string html_escape(std::string_view text);

// The series charted, in page order (the JSON `series` keys): utilization, memory,
// temperature, power, SM clock, share of samples with the clocks held back.
inline constexpr std::string_view kReportChartSeries[] = {"utilization", "memory",   "temperature",
                                                          "power",       "sm_clock", "held_back"};
// Those of the node charts section; sm_clock and held_back are the clocks section's.
inline constexpr std::string_view kNodeChartSeries[] = {"utilization", "memory", "temperature", "power"};
inline constexpr std::string_view kClockChartSeries[] = {"sm_clock", "held_back"};

// {"charts": [{key, title, unit, decimals, max}], "time_s": [...],
//  "gpus": [{label, index, severity, series: {KEY: [value|null...]}}]}: every GPU's chart
// buckets on one time axis (the union of the GPUs' buckets); null where a GPU's bucket has no
// value (a gap, never 0). severity: the GPU's worst finding if warning or critical, else null.
// utc: the charts' times in UTC (report --utc), else in the viewer's local zone.
std::string report_chart_data_json(const store::HistoryReport& report,
                                   const std::map<unsigned, diagnose::Severity>& worst = {}, bool utc = false);

// <div class="chart node-chart" data-series="KEY"></div> for each KEY (all GPUs overlaid).
std::string node_charts_html(std::span<const std::string_view> keys);

// Per GPU a collapsed <details class="gpu-detail"> (its heading: index, name, UUID, and a
// severity badge and class gpu-warning / gpu-critical when its worst finding is one) holding
// one <div class="chart" data-gpu="G" data-series="KEY"> per series.
std::string gpu_details_html(const store::HistoryReport& report,
                             const std::map<unsigned, diagnose::Severity>& worst = {});

// The data, uPlot and the script that draws every chart div of the page (all inline), and a
// <noscript> note.
std::string report_chart_scripts(const store::HistoryReport& report,
                                 const std::map<unsigned, diagnose::Severity>& worst = {}, bool utc = false);

}  // namespace gpuwatch::report
