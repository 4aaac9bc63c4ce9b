#pragma once
// The environment that puts a program on the simulated driver (see sim/engine/sim_api.hpp
// for the contract with the driver). Pure functions, plus apply_environment() to setenv.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::sim_session {

struct EnvAssignment {
  std::string name;
  std::string value;
  bool operator==(const EnvAssignment&) const = default;
};

// Reads a variable (nullptr when unset); std::getenv in production, a map in tests.
using EnvLookup = std::function<const char*(const char*)>;

struct SimEnvironmentInput {
  std::filesystem::path driver_dir;  // holds libnvidia-ml.so.1 and libnvidia-ml.so
  std::string scenario;              // as resolved by resolve_scenario_argument()
  std::string standin_pids;          // GPUWATCH_SIM_PIDS value ("" when none)
  bool for_child = true;             // also set LD_LIBRARY_PATH and GPUWATCH_NVML_LIBRARY
  std::filesystem::path host_root = {};  // the simulated host (GPUWATCH_HOST_ROOT); empty: not set
  // The simulated Level Zero driver's file, for a scenario with Intel GPUs: ZE_ENABLE_ALT_DRIVERS
  // names it (Debian's libze_loader.so.1 loads it) and ZES_ENABLE_SYSMAN=1. Empty: neither is set.
  std::filesystem::path ze_driver = {};
  bool vendor_files = false;  // AMD or Intel GPUs, or host signals: GPUWATCH_SIM_VENDOR_FILES=1 (sim::kVendorFilesEnv)
};

// "dir" or "dir:existing" (existing entries kept, in order).
std::string prepend_search_path(const std::string& dir, const char* existing);

// A built-in name stays as it is; a file path becomes absolute (so that a child
// started in another directory still finds it). Anything else is returned unchanged,
// for validate_scenario() to report.
std::string resolve_scenario_argument(std::string_view argument, const std::vector<std::string>& builtin_names);

// The variables to set. GPUWATCH_SIM_EPOCH_MS is set to now_ms only if it is unset,
// so nested runs (and a caller that pins the epoch) share one timeline.
std::vector<EnvAssignment> sim_environment(const SimEnvironmentInput& input, const EnvLookup& lookup,
                                           std::int64_t now_ms);

void apply_environment(const std::vector<EnvAssignment>& assignments);

std::int64_t unix_time_ms();

}  // namespace gpuwatch::sim_session
