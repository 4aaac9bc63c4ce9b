#pragma once
// One simulation as `gpuwatch sim run` and `gpuwatch --simulate` start it: the scenario
// checked and resolved, the driver found, the stand-in processes running, and the
// environment that points NVML clients at all of it.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim_session/environment.hpp"
#include "sim_session/standin_process.hpp"
#include "core/result.hpp"

namespace gpuwatch::sim_session {

// A temporary folder, removed with everything in it when destroyed.
class TemporaryFolder {
 public:
  TemporaryFolder() = default;
  explicit TemporaryFolder(std::filesystem::path path) : path_(std::move(path)) {}
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  // Takes FOLDER over (removing the one held before).
  void adopt(std::filesystem::path folder);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Removes every simulated host folder this process still holds: for an exit that skips the
// destructors (std::_Exit past a hung NVML call, cli/hung_exit.hpp).
void remove_simulated_hosts_now();

struct SimSession {
  std::string scenario;               // built-in name or absolute file path
  TemporaryFolder host_root;          // the simulated host's /proc and /dev (GPUWATCH_HOST_ROOT)
  std::filesystem::path driver_dir;   // holds libnvidia-ml.so.1
  bool vendor_files = false;          // AMD or Intel GPUs or host signals in the scenario (their files are rendered)
  std::filesystem::path ze_driver;    // the simulated Level Zero driver (Intel GPUs in the scenario); empty: none
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

}  // namespace gpuwatch::sim_session
