#pragma once
// The report's event timeline: what happened when, oldest first, from the range's recorded
// events and findings. Pure.
//  * Xid events (store/xid_log.hpp, schema 9), with what the Xid means;
//  * alert events (firing, resolved; store/alert_log.hpp);
//  * the start of every warning or critical finding, and of the hardware findings whatever
//    their severity (ECC, row remapping, lost GPU, recovery action, PCIe). Xid findings are
//    left out: the Xid events say it, one line per event.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"
#include "report/findings.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::report {

struct TimelineEvent {
  std::int64_t time_ms = 0;
  std::vector<unsigned> gpus;                  // empty: the node
  std::string kind;                            // "xid", "alert", "ecc", "lost", "finding"
  std::optional<diagnose::Severity> severity;  // nullopt: a resolved alert (good news)
  std::string text;
};

// Oldest first (ties: Xids, then alerts, then findings), at most LIMIT (the first LIMIT);
// TRUNCATED (optional) tells how many more there were.
std::vector<TimelineEvent> report_timeline(const store::HistoryReport& report, const ReportFindings& findings,
                                           std::size_t limit = 200, std::size_t* truncated = nullptr);

}  // namespace gpuwatch::report
