#pragma once
// How the history keys a GPU (the gpus table's gpu_key, store/history_writer.cpp): its UUID,
// else "pci:" and its PCI bus id, else "index:" and its NVML index. The span tables
// (process_owners, process_commands) key their rows the same way.
#include <string>

#include "core/snapshot.hpp"

namespace gpuwatch::recorder {

std::string history_gpu_key(const core::DeviceSnapshot& device);

}  // namespace gpuwatch::recorder
