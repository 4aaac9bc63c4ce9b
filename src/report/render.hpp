#pragma once
// `gpuwatch report` output, pure functions over store::HistoryReport:
//  * text: the terminal summary (one table of GPUs, throttling, processes);
//  * json: the same figures for scripts (base units, unit-suffixed keys, null when absent);
//  * html: one self-contained file (summary tables and interactive uPlot charts per GPU,
//    uPlot inlined from the binary: no script, stylesheet or font loaded from anywhere).
#include <string>

#include "report/findings.hpp"
#include "report/units.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

// FINDINGS (issue 10) come first: the text's "Findings" section, the JSON's `findings`
// array, the HTML's findings panel; the GPU table gets a `findings` column. Not diagnosed
// (the default): none of these.
// STYLE: the times of the text and the HTML (units.hpp: `status`'s format, local or --utc);
// the JSON keeps ISO 8601 with the zone's offset.
std::string render_report_text(const store::HistoryReport& report, const ReportFindings& findings = {},
                               TimeStyle style = {});
std::string render_report_json(const store::HistoryReport& report, const ReportFindings& findings = {});
std::string render_report_html(const store::HistoryReport& report, const ReportFindings& findings = {},
                               TimeStyle style = {});

// The three tables of the text summary (GPUs, throttling, processes), each after a blank
// line: what the HTML page shows as tables.
std::string report_tables_text(const store::HistoryReport& report, const ReportFindings& findings = {},
                               TimeStyle style = {});

// The summary in words (summary.hpp) as text: "Summary:" and one "  - sentence" per line.
std::string report_summary_text(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style);

// When rollups were used (periods older than the raw retention), what that means for the
// figures: which rollups, from when, and that p95 is approximate there. "" otherwise.
std::string report_sources_note(const store::HistoryReport& report);

// "1h 02m", "3m 05s", "12.5s": a run time or throttled time.
std::string report_duration_text(double seconds);

}  // namespace gpuwatch::report
