#pragma once
// The sections of the HTML report (html.cpp puts them in order), each a <section> with an
// <h2>, built from the range's figures and findings. Pure functions; times as units.hpp says.
#include <string>

#include "report/findings.hpp"
#include "report/units.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

// The summary in words (summary.hpp): a list, each line coloured by its severity.
std::string summary_section_html(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style);
// One row per GPU: its findings, utilization, memory, SM clock, clocks held back, temperature,
// power and energy; a GPU with a warning or critical finding is marked (tr.gpu-warning/-critical).
std::string gpu_table_html(const store::HistoryReport& report, const ReportFindings& findings);
// Per GPU, the time its clocks were held back, by reason (with the share of its samples).
std::string throttle_table_html(const store::HistoryReport& report);
// The event timeline (timeline.hpp): time, GPU, what happened.
std::string timeline_section_html(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style);
// The processes seen, with their commands (the whole command on hover when cut).
std::string processes_section_html(const store::HistoryReport& report, TimeStyle style);

}  // namespace gpuwatch::report
