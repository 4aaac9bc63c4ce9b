#pragma once
// The simulated AMD and Intel GPUs' files (sysfs, hwmon, DRM fdinfo) and the simulated host's
// /proc and /sys (`host: signals:`, sim/engine/host_signal_tree.hpp) under the simulated host
// root, kept at the scenario's values of the moment they are read (backend::SimulatedTree).
// Every gpuwatch process of a simulation renders them itself from the same scenario and epoch,
// so each sees the same values (files are replaced atomically).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "backend/simulated_tree.hpp"

namespace gpuwatch::sim_session {

// The tree of the simulation this process runs in (GPUWATCH_SIM_SCENARIO, GPUWATCH_HOST_ROOT,
// GPUWATCH_SIM_EPOCH_MS, GPUWATCH_SIM_CLOCK_MS), or nullptr: not simulated, or the scenario has
// no AMD or Intel GPU and no host signals (GPUWATCH_SIM_VENDOR_FILES unset).
std::shared_ptr<backend::SimulatedTree> simulated_vendor_tree_from_environment();

// What the tree is made from (the environment's variables, or a test's).
struct SimulatedTreeSettings {
  std::string scenario;                     // built-in name or file (GPUWATCH_SIM_SCENARIO)
  std::filesystem::path root;               // GPUWATCH_HOST_ROOT
  std::int64_t epoch_ms = 0;                // GPUWATCH_SIM_EPOCH_MS: Unix ms of scenario time 0
  std::int64_t clock_ms = 0;                // GPUWATCH_SIM_CLOCK_MS: a clock that stays there (0: the real one)
  std::string pids;                         // GPUWATCH_SIM_PIDS
  std::chrono::milliseconds refresh_period{100};  // refresh() re-renders files older than this
};
// nullptr when the scenario does not load or has neither AMD/Intel GPUs nor host signals (reason in *WHY if given).
std::shared_ptr<backend::SimulatedTree> make_simulated_vendor_tree(const SimulatedTreeSettings& settings,
                                                                   std::string* why = nullptr);

}  // namespace gpuwatch::sim_session
