#pragma once
// This node's GPUs as the backends name them, read once at a command's start: each GPU's index and UUID
// (history/live_priming.hpp tells a history recorded on this node from one recorded elsewhere).
#include <chrono>

#include "core/snapshot.hpp"
#include "backend/device_backend.hpp"

namespace gpuwatch::sampler {

// Within DEADLINE even when a GPU's driver call hangs: that GPU is TimedOut, its UUID absent.
core::Snapshot gpu_identities(const backend::DeviceBackend& backend, std::chrono::milliseconds deadline = std::chrono::seconds(1));

}  // namespace gpuwatch::sampler
