#pragma once
// Diagnosis of a recorded window: the history is streamed (one snapshot in memory at a time,
// whatever the window; only the engine's input columns) to the diagnose engine in time order.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/finding.hpp"
#include "diagnose/finding_groups.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::history {

struct RecordedDiagnosis {
  std::vector<diagnose::Finding> findings;  // one per problem seen in the window (grouped), by start
  std::size_t snapshots = 0;                // samples read (0: nothing recorded in the window)
  std::optional<std::int64_t> first_ms, last_ms;
};

// Feeds the recorded window to DIAGNOSER (which may go on live afterwards: status, top).
core::Result<RecordedDiagnosis> feed_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                              std::optional<std::int64_t> until_ms, diagnose::Diagnoser& diagnoser);

// SINCE_MS / UNTIL_MS: Unix ms, inclusive; nullopt leaves that end open. The findings are
// grouped (diagnose/finding_groups.hpp): one per problem, with its episodes and its share of
// the samples' span; GROUPING says how their words write times.
core::Result<RecordedDiagnosis> diagnose_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                  std::optional<std::int64_t> until_ms,
                                                  const diagnose::GroupOptions& grouping = {});

}  // namespace gpuwatch::history
