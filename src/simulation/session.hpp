#pragma once
// One simulation as `gpuwatch sim run` and `gpuwatch --simulate` start it: the scenario
// checked and resolved, the driver found, the stand-in processes running, and the
// environment that points NVML clients at all of it.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "simulation/environment.hpp"
#include "simulation/standin_process.hpp"
#include "core/result.hpp"

namespace gpuwatch::simulation {

struct SimSession {
  std::string scenario;               // built-in name or absolute file path
  std::filesystem::path driver_dir;   // holds libnvidia-ml.so.1
  std::string standin_pids;           // GPUWATCH_SIM_PIDS value
  StandinGroup standins;              // killed when the session is destroyed

  std::filesystem::path driver_library() const;
  // The variables to set (for_child: also LD_LIBRARY_PATH and GPUWATCH_NVML_LIBRARY).
  std::vector<EnvAssignment> environment(bool for_child) const;
};

// Validates the scenario (error code core::kExitUsage, message naming file, line and key),
// finds the driver and starts the stand-ins (error code core::kExitRuntimeError).
core::Result<std::unique_ptr<SimSession>> start_sim_session(std::string_view scenario_argument);

// Validation and resolution only (for `sim show`): the resolved scenario or a core::kExitUsage error.
core::Result<std::string> checked_scenario(std::string_view scenario_argument);

}  // namespace gpuwatch::simulation
