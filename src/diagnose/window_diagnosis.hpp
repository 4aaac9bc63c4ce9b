#pragma once
// Batch diagnosis of a window (from the SQLite history, a log, or `sim record`): the
// snapshots are fed in time order with the Xid events merged in, and every finding seen in
// the window is returned, the ended ones with their start and end.
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

struct XidEvent {
  unsigned gpu = 0;
  std::uint64_t xid = 0;
  std::chrono::system_clock::time_point at;
};

// SNAPSHOTS in time order; XIDS in any order.
std::vector<Finding> diagnose_window(std::span<const core::Snapshot> snapshots, std::span<const XidEvent> xids = {});

// The worst severity among FINDINGS (nullopt when empty): `diagnose`'s exit code.
std::optional<Severity> worst_severity(std::span<const Finding> findings);

}  // namespace gpuwatch::diagnose
