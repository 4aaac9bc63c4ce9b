#pragma once
// The simulated host around the simulated driver: the scenario's `host:` written as files under a
// root folder (the simulated host root, GPUWATCH_HOST_ROOT), for what reads /proc and /dev
// rather than NVML (`gpuwatch doctor`). Device nodes are plain files (making character devices
// needs privileges); their mode bits say who may open them.
#include <filesystem>
#include <string>

#include "core/result.hpp"
#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

// The variable that names the simulated host root to the processes of a simulation.
inline constexpr const char* kHostRootEnv = "GPUWATCH_HOST_ROOT";

// "00000000:3B:00.0" -> "0000:3b:00", as the kernel's NVRM lines name a GPU.
std::string kernel_pci_name(const std::string& bus_id);

// Writes ROOT/proc/modules, ROOT/proc/driver/nvidia/version, ROOT/proc/1/cgroup, ROOT/dev/nvidia*,
// ROOT/dev/kmsg and the container markers for SCENARIO. ROOT must exist.
core::Result<void> write_host_tree(const Scenario& scenario, const std::filesystem::path& root);

}  // namespace gpuwatch::sim
