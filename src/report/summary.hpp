#pragma once
// The report's summary, first on the page and in the text: what happened, in words, with the
// numbers, generated from the findings (diagnose) and the range's figures (store). Pure.
//   "GPU 3 spent 68 % of the 6m 00s recorded thermally throttled; its SM clock averaged 1,120 of 1,980 MHz."
//   "GPU 6's eval_server.py (PID 14735) grew 15.4 GiB/min; at that rate the GPU ran out of memory at 14:02:10."
//   "GPUs 0, 1, 2, 4, 5 and 7 look healthy: 99 % busy on average, 66 °C at most."
//   "8 GPUs, 6m 00s from 2026-11-30 08:00:00: 97 % utilization on average, 1.23 kWh."
#include <optional>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"
#include "report/findings.hpp"
#include "report/units.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

struct SummaryLine {
  std::optional<diagnose::Severity> severity;  // nullopt: a plain statement (healthy GPUs, the node)
  std::vector<unsigned> gpus;                  // the GPUs it is about (empty: the node)
  std::string text;                            // one or two sentences, ending with "."
};

// At most this many problems get a sentence (most urgent first); the rest are counted in one line.
inline constexpr std::size_t kSummaryFindings = 6;

// Most urgent first (diagnose/problem_order.hpp: an OOM on its way, a lost GPU, ECC... before
// throttling; then critical, active, by impact): one line per warning/critical problem, never
// the same sentence twice, a consequence another names left out (info findings are left to the
// findings section), then the healthy GPUs, then the node as a whole. A problem of several
// episodes (grouped findings) says how many, and how it evolved. Empty when the range has no GPU.
std::vector<SummaryLine> report_summary(const store::HistoryReport& report, const ReportFindings& findings,
                                        TimeStyle style);

// The sentence for one finding, from the finding and the range's figures for its GPU.
std::string finding_sentence(const diagnose::Finding& finding, const store::HistoryReport& report, TimeStyle style);

// "GPU 3", "GPUs 0 and 1", "GPUs 0, 1, 2 and 4".
std::string gpus_phrase(const std::vector<unsigned>& gpus);

// "eval_server.py" from "python eval_server.py --port 8000", "train" from "/usr/bin/train":
// the script or the program a process runs, for a sentence.
std::string program_of(const std::string& command);

// "8.0 GiB/min", "350 MiB/min": a memory growth rate in bytes per second.
std::string growth_rate_text(double bytes_per_s);

}  // namespace gpuwatch::report
