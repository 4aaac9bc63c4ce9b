#pragma once
// Which GPUs a command works on: `-i 0,2,3`, UUIDs or PCI bus ids, as nvidia-smi takes them.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "backend/device_backend.hpp"

namespace gpuwatch::sampler {

// "0,2,3" -> {0, 2, 3}. Error for anything that is not a GPU index.
core::Result<std::vector<unsigned>> parse_gpu_indices(const std::string& list);

// `-i` as nvidia-smi takes it: comma separated indices, UUIDs ("GPU-...", a unique
// prefix is enough) or PCI bus ids ("00000000:18:00.0", also without the domain).
// IDENTITIES is a snapshot with Uuid and PciBusId read for every GPU.
core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const core::Snapshot& identities);

// Samples the identity fields and resolves LIST (empty list: all GPUs, empty result).
core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const backend::DeviceBackend& backend);

}  // namespace gpuwatch::sampler
