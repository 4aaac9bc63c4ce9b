#pragma once
// Pieces of the HTML report (report_html.cpp): the interactive charts, drawn in the
// browser by uPlot (built into the binary, src/web) from the chart buckets embedded
// as JSON in the page.
#include <map>
#include <string>
#include <string_view>

#include "diagnose/finding.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

// TEXT with & < > " as HTML entities.
std::string html_escape(std::string_view text);

// The series charted per GPU, in page order (the JSON `series` keys): utilization,
// memory, temperature, power.
inline constexpr std::string_view kReportChartSeries[] = {"utilization", "memory", "temperature", "power"};

// {"charts": [...], "gpus": [{label, time_s, series: {KEY: [value|null...]}}]}: the
// chart buckets of every GPU; null where a bucket has no value (a gap, never 0).
std::string report_chart_data_json(const store::HistoryReport& report);

// The charts section: per GPU a heading and one <div class="chart"> per series, the
// data, uPlot and the script that draws them (all inline), and a <noscript> note. A GPU
// whose worst finding (WORST, by GPU index) is a warning or critical gets a severity badge
// in its heading and the class gpu-warning / gpu-critical.
std::string report_charts_section(const store::HistoryReport& report,
                                  const std::map<unsigned, diagnose::Severity>& worst = {});

}  // namespace gpuwatch::report
