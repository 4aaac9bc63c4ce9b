#pragma once
// Where the simulated driver (libnvidia-ml.so.1 + libnvidia-ml.so) lives:
//   GPUWATCH_SIM_DRIVER_DIR if set, else <exe dir>/sim-driver (build tree),
//   else <exe dir>/../lib/gpuwatch/sim-driver (installed).
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::sim_session {

inline constexpr const char* kSimDriverDirEnv = "GPUWATCH_SIM_DRIVER_DIR";
inline constexpr const char* kSimDriverLibrary = "libnvidia-ml.so.1";
inline constexpr const char* kSimDriverFolder = "sim-driver";

// Directories to look in, best first. env_override: the GPUWATCH_SIM_DRIVER_DIR value or
// nullptr; when set it is the only candidate. folder: "sim-driver" or a variant's folder.
std::vector<std::filesystem::path> sim_driver_candidates(const std::filesystem::path& executable,
                                                         const char* env_override,
                                                         const std::string& folder = kSimDriverFolder);

// The first candidate that holds libnvidia-ml.so.1, or an error that lists where it looked.
core::Result<std::filesystem::path> find_sim_driver_dir(const std::string& folder = kSimDriverFolder);

// The simulated Level Zero driver's file (sim/engine/sim_api.hpp: kZeDriverDirName/kZeDriverFile),
// looked for like the NVML driver's folder: beside GPUWATCH_SIM_DRIVER_DIR's folder if set, else
// <exe dir>/sim-ze, else <exe dir>/../lib/gpuwatch/sim-ze. An error lists where it looked.
core::Result<std::filesystem::path> find_sim_ze_driver();

// This program's own file (/proc/self/exe).
std::filesystem::path current_executable();

}  // namespace gpuwatch::sim_session
