#pragma once
// `gpuwatch report` output, pure functions over store::HistoryReport:
//  * text: the terminal summary (one table of GPUs, throttling, processes);
//  * json: the same figures for scripts (base units, unit-suffixed keys, null when absent);
//  * html: one self-contained file (summary tables and interactive uPlot charts per GPU,
//    uPlot inlined from the binary: no script, stylesheet or font loaded from anywhere).
#include <string>

#include "store/history_report.hpp"

namespace gpuwatch::report {

std::string render_report_text(const store::HistoryReport& report);
std::string render_report_json(const store::HistoryReport& report);
std::string render_report_html(const store::HistoryReport& report);

// When rollups were used (periods older than the raw retention), what that means for the
// figures: which rollups, from when, and that p95 is approximate there. "" otherwise.
std::string report_sources_note(const store::HistoryReport& report);

// "1h 02m", "3m 05s", "12.5s": a run time or throttled time.
std::string report_duration_text(double seconds);

}  // namespace gpuwatch::report
