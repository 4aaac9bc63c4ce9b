#pragma once
// -i/--id for `gpuwatch query`: a comma list of NVML indices, UUIDs ("GPU-...") or
// PCI bus ids ("00000000:01:00.0", also the short "01:00.0"), as nvidia-smi.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::query {

// identity: a snapshot with at least Uuid and PciBusId read for every device.
// Returns the matching NVML indices in the order given; an error names the id that matched nothing.
core::Result<std::vector<unsigned>> select_devices(const std::string& ids, const core::Snapshot& identity);

}  // namespace gpuwatch::query
