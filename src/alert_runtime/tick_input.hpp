#pragma once
// The alert engine's input for one tick, built in one place for every live command: each GPU's
// latest sample with its age and staleness, its Xids, the findings active then and the node's
// state (GPU count; the driver is taken as gone when every GPU's latest sample failed with
// "driver not loaded", "uninitialized" or an RM version mismatch). serve and run hand in what the
// diagnosis tick read from the collector (live/live_session.cpp); record hands in a whole tick
// it just sampled (every GPU fresh, no Xid watcher there).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "alerts/engine.hpp"
#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::alert_runtime {

// How old one GPU's latest sample is; every sampled GPU has one (those with no sample yet too).
struct GpuFreshness {
  unsigned index = 0;
  bool has_sample = false;
  double age_s = 0;
  bool stale = false;  // the watchdog says its sampling thread hangs
};

// One (GPU, Xid) pair seen, with the wall clock of its latest event.
struct GpuXid {
  unsigned gpu = 0;
  std::uint64_t xid = 0;
  double last_seen_unix_s = 0;
};

// SNAPSHOT must outlive the result (GPU inputs point into it).
alerts::TickInput make_tick_input(const core::Snapshot& snapshot, const std::vector<GpuFreshness>& freshness,
                                  const std::vector<GpuXid>& xids, const std::vector<diagnose::Finding>& findings,
                                  std::chrono::system_clock::time_point now, const std::string& host);

// A whole tick just sampled (`record`): every device fresh (age 0, never stale), at the
// snapshot's time, no Xids.
alerts::TickInput make_tick_input(const core::Snapshot& snapshot, const std::vector<diagnose::Finding>& findings,
                                  const std::string& host);

}  // namespace gpuwatch::alert_runtime
