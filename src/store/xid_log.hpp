#pragma once
// Xid events in the history database (schema 9): the driver's numbered error reports as a
// recorder observed them (NVML delivers Xids only through an event set, never as a field, so
// they are not in gpu_samples). One row per event: when it was received, the GPU's NVML index
// and UUID (as seen then), the Xid number. `report` shows them in its event timeline and the
// recorded diagnosis (history/findings.hpp) replays them into the diagnose engine. Retention
// drops them with the raw samples (history_retention.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct XidEventRow {
  std::int64_t time_ms = 0;         // Unix ms, when the recorder received it
  unsigned gpu = 0;                 // NVML index
  std::optional<std::string> uuid;  // nullopt: not known
  std::uint64_t xid = 0;
};

// Migration 9: table xid_events, indexed by time.
std::string schema_v9_sql();

// Appends EVENTS in one transaction.
core::Result<void> write_xid_events(HistoryDatabase& db, const std::vector<XidEventRow>& events);

// Events with SINCE_MS <= time_ms <= UNTIL_MS (nullopt: open), oldest first. A file written
// before schema 9 (opened read-only, not migrated) has none: an empty list, not an error.
core::Result<std::vector<XidEventRow>> read_xid_events(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                       std::optional<std::int64_t> until_ms);

}  // namespace gpuwatch::store
