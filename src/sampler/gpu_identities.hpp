#pragma once
// This node's GPUs as NVML names them, read once at a command's start: each GPU's index and UUID
// (history/live_priming.hpp tells a history recorded on this node from one recorded elsewhere).
#include <chrono>

#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::sampler {

// Within DEADLINE even when a GPU's NVML call hangs: that GPU is TimedOut, its UUID absent.
core::Snapshot gpu_identities(const nvml::NvmlApi& api, std::chrono::milliseconds deadline = std::chrono::seconds(1));

}  // namespace gpuwatch::sampler
