#pragma once
// The findings of `gpuwatch report` (issue 10: "findings first, with their impact"): what the
// diagnose engine found over the report's range, rendered for the text summary, the JSON and
// the HTML page. Pure functions; the diagnosis itself is history::diagnose_recorded.
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"
#include "report/units.hpp"

namespace gpuwatch::report {

// What the report knows of the findings of its range.
struct ReportFindings {
  bool diagnosed = false;                    // false: no diagnosis was run (no findings section at all)
  std::vector<diagnose::Finding> findings;   // every finding seen in the range, any order
  std::size_t samples = 0;                   // raw samples diagnosed (0: none in the range)
  std::optional<std::int64_t> first_ms, last_ms;  // the diagnosed samples' span
};

// At most this many findings are spelled out in the text and HTML reports (the JSON has all;
// `gpuwatch history --findings` lists them all).
inline constexpr std::size_t kReportFindingsShown = 20;

// "GPU 3", "GPUs 0,1", "node" (no GPU named).
std::string findings_gpu_text(const std::vector<unsigned>& gpus);

// The worst severity of the findings involving each GPU index.
std::map<unsigned, diagnose::Severity> worst_severity_by_gpu(std::span<const diagnose::Finding> findings);

// The report's "Findings" section as text (ends with a newline; "" when not diagnosed):
//   Findings (2, worst first):
//   CRITICAL  GPU 6  memory leak: PID 4060 +16000 MiB/min, OOM in ~41 s
//             impact: about 12 % of the GPU's time or throughput lost
//             when:   2026-11-30 14:03:05 – 14:05:10 (2m 05s), ended   (units.hpp's times)
//             why:    <detail>
//             try:    <advice>
//             kind:   memory_leak
// or "Findings: none. No findings: ..." when there are none.
std::string report_findings_text(const ReportFindings& findings, std::size_t limit = kReportFindingsShown,
                                 TimeStyle style = {});

// The findings panel at the top of the HTML page (a <section class="findings">; "" when not
// diagnosed): one card per finding coloured by severity (classes severity-info/-warning/
// -critical, report.css), with its GPUs, summary, impact and time span in view, and the
// evidence and advice in a collapsed <details> (the page stays short).
std::string report_findings_html(const ReportFindings& findings, std::size_t limit = kReportFindingsShown,
                                 TimeStyle style = {});

// The findings as the JSON array of docs/diagnose.md (diagnose::to_json), worst first.
nlohmann::ordered_json report_findings_json(std::span<const diagnose::Finding> findings);

}  // namespace gpuwatch::report
