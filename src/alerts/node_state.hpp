#pragma once
// The node-level facts the engine's node rules read, taken from a snapshot.
#include "core/snapshot.hpp"

namespace gpuwatch::alerts {

// True when every device of SNAPSHOT failed with a code that means the driver is gone
// (uninitialized, driver not loaded, RM version mismatch after a driver upgrade). False when
// there is no device: a machine with no GPU has no driver to lose.
bool driver_gone(const core::Snapshot& snapshot);

}  // namespace gpuwatch::alerts
