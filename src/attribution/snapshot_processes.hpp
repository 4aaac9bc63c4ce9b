#pragma once
// The processes of a snapshot as the attributor takes them (PID, GPU index, GPU UUID).
#include <vector>

#include "attribution/attributor.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::attribution {

std::vector<GpuProcess> gpu_processes(const core::Snapshot& snapshot);

// A one-shot lookup (status, pmon once): /proc now, then every API once (bounded by the
// attributor's timeouts), then the answers. Commands that sample repeatedly start() the
// attributor and call attribute() instead.
std::map<unsigned, Attribution> attribute_once(Attributor& attributor, const core::Snapshot& snapshot);

// One GPU's processes and the labels of the GPU itself (serve: from that GPU's sampling thread).
struct DeviceOwners {
  std::map<unsigned, Attribution> processes;  // by PID
  OwnerLabels labels;
};
DeviceOwners attribute_device(Attributor& attributor, const core::DeviceSnapshot& device);

}  // namespace gpuwatch::attribution
