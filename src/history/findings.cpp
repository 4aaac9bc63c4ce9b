#include "history/findings.hpp"

#include <algorithm>
#include <chrono>

#include "diagnose/diagnoser.hpp"
#include "history/max_clock.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::history {

namespace {
constexpr std::int64_t kSliceMs = 10 * 60 * 1000;  // 10 minutes of samples in memory at a time
}

core::Result<RecordedDiagnosis> diagnose_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                  std::optional<std::int64_t> until_ms) {
  diagnose::Diagnoser diagnoser;
  auto out = feed_recorded(db, since_ms, until_ms, diagnoser);
  if (out) out->findings = diagnoser.all_findings();
  return out;
}

core::Result<RecordedDiagnosis> feed_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                              std::optional<std::int64_t> until_ms, diagnose::Diagnoser& diagnoser) {
  RecordedDiagnosis out;
  if (!since_ms || !until_ms) {  // an open end: where the history starts or ends (a count: only then)
    auto counts = store::count_history(db);
    if (!counts) return counts.error();
    if (!counts->first_ms || !counts->last_ms) return out;
    if (!since_ms) since_ms = counts->first_ms;
    if (!until_ms) until_ms = counts->last_ms;
  }
  const std::int64_t from = *since_ms, to = *until_ms;
  const auto highest = highest_sm_clock(db, from, to);  // the history has no clocks.max.sm (max_clock.hpp)
  for (std::int64_t slice = from; slice <= to; slice += kSliceMs) {
    store::HistoryQuery query;
    query.since_ms = slice;
    query.until_ms = std::min(slice + kSliceMs - 1, to);
    query.processes = true;
    auto snapshots = store::read_history(db, query);
    if (!snapshots) return snapshots.error();
    for (auto& snapshot : *snapshots) {
      fill_max_sm_clock(snapshot, highest);
      diagnoser.observe(snapshot);
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.timestamp.time_since_epoch()).count();
      if (!out.first_ms) out.first_ms = ms;
      out.last_ms = ms;
      ++out.snapshots;
    }
  }
  return out;
}

}  // namespace gpuwatch::history
