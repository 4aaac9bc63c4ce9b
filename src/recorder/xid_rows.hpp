#pragma once
// Xid events for the history (store/xid_log.hpp) from what a recorder observed. Pure.
//  * `record` and `serve` sample through the collector, whose Xid watcher keeps running counts
//    per (GPU, Xid) (live/xid_watcher.hpp): XidCountDiff turns them into the events new
//    since its last call.
//  * `sim record` drains an event set once per sample on the virtual clock
//    (backend::EventSource::drain): xid_rows stamps those events with the sample's time.
// The GPU's UUID comes from the snapshot of the same tick (nullopt when it was not read).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "backend/device_backend.hpp"
#include "core/snapshot.hpp"
#include "live/xid_count.hpp"
#include "store/xid_log.hpp"

namespace gpuwatch::recorder {

// EVENTS received by the time of SNAPSHOT, as rows at that time.
std::vector<store::XidEventRow> xid_rows(const std::vector<backend::DeviceEvent>& events, const core::Snapshot& snapshot);

class XidCountDiff {
 public:
  // One row per event counted since the previous call (at the count's last_seen time: the
  // watcher keeps only the latest time per (GPU, Xid)), sorted by time.
  std::vector<store::XidEventRow> new_events(const std::vector<live::XidCount>& counts,
                                             const core::Snapshot& snapshot);

 private:
  std::map<std::pair<unsigned, std::uint64_t>, std::uint64_t> seen_;  // (GPU, Xid) -> count written
};

}  // namespace gpuwatch::recorder
