#pragma once
// The engine's input for a command that samples the whole node in its own loop (`record`):
// every device of the snapshot was just sampled (age 0, never stale); no Xid watcher runs there.
#include <string>
#include <vector>

#include "alerts/engine.hpp"
#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::alert_runtime {

// SNAPSHOT must outlive the result (GPU inputs point into it).
alerts::TickInput tick_from_snapshot(const core::Snapshot& snapshot, const std::vector<diagnose::Finding>& findings,
                                     const std::string& host);

}  // namespace gpuwatch::alert_runtime
