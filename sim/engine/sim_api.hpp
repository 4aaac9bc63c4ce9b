#pragma once
// What the rest of gpuwatch (the CLI's `sim` commands and `--simulate`) needs from
// the simulator engine. The stand-in driver (sim/driver) uses the engine directly.
//
// Contract with the stand-in driver, through the environment of the host process:
//   GPUWATCH_SIM_SCENARIO   built-in scenario name or path of a YAML scenario file
//   GPUWATCH_SIM_EPOCH_MS   Unix time in ms that is scenario time 0 (so that several
//                           programs reading one scenario at once see the same values);
//                           unset: the time the driver was loaded
//   GPUWATCH_SIM_PIDS       PIDs of the stand-in processes, "gpu:proc=pid,..." as
//                           written by standin_pid_env() below
//   GPUWATCH_SIM_CLOCK_MS   Unix time in ms that every call reads, a clock that never moves
//                           (golden files: the same values at every run); unset: the real clock
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::sim {

inline constexpr const char* kScenarioEnv = "GPUWATCH_SIM_SCENARIO";
inline constexpr const char* kEpochEnv = "GPUWATCH_SIM_EPOCH_MS";
inline constexpr const char* kPidsEnv = "GPUWATCH_SIM_PIDS";
inline constexpr const char* kClockEnv = "GPUWATCH_SIM_CLOCK_MS";
// Set to 1 by a simulation whose scenario has AMD or Intel GPUs or host signals: its processes render
// those GPUs' kernel files and the host's /proc and /sys (sim_session/simulated_vendor_tree.hpp). Unset: no process loads the scenario for
// them (a one-shot status or dmon on an NVIDIA-only scenario pays nothing, bench/speed_guard.sh).
inline constexpr const char* kVendorFilesEnv = "GPUWATCH_SIM_VENDOR_FILES";

struct ScenarioSummary {
  std::string name;     // built-in name
  std::string summary;  // one line
};

// A process that `sim run` / `--simulate` starts as a stand-in, so that the PIDs the
// driver reports are real (user, command line and /proc lookups work in clients).
struct StandinSpec {
  int gpu = 0;                        // GPU index in the scenario
  int process = 0;                    // index of the process on that GPU
  std::vector<std::string> argv;      // the command line to show
  std::string user;                   // the scenario's user name (informational; may be empty)
};

std::vector<ScenarioSummary> list_builtin_scenarios();

// Checks that NAME_OR_PATH names a built-in scenario or a valid scenario file.
// The error names the file, line and key, and for an unknown model lists the catalog.
core::Result<void> validate_scenario(std::string_view name_or_path);

// Human-readable description for `gpuwatch sim show`: GPUs, processes, timeline, faults.
core::Result<std::string> describe_scenario(std::string_view name_or_path);

// Processes that need stand-ins (those with no fixed PID and no PID variable).
core::Result<std::vector<StandinSpec>> standin_processes(std::string_view name_or_path);

// The GPUWATCH_SIM_PIDS value for stand-ins started with these PIDs (same order as specs).
std::string standin_pid_env(const std::vector<StandinSpec>& specs, const std::vector<int>& pids);

// `gpuwatch sim import`: turns nvidia-smi captures into scenario YAML. Each path is a
// --query-gpu CSV with header (required), an `nvidia-smi -q` text, or a
// --query-compute-apps CSV; the kind is detected from the content.
core::Result<std::string> import_captures(const std::vector<std::string>& paths, bool keep_time = false);

// The stand-in driver comes in two builds: <build>/sim-driver/ (every symbol) and
// <build>/sim-driver-legacy/ (no _v2/_v3 and other newer symbols, like a pre-R450
// driver). A scenario with `driver: {symbols: legacy}` must run on the legacy one:
// `sim run` / `--simulate` put that directory on LD_LIBRARY_PATH instead.
inline constexpr const char* kDriverDirName = "sim-driver";
inline constexpr const char* kLegacyDriverDirName = "sim-driver-legacy";
core::Result<bool> needs_legacy_driver(std::string_view name_or_path);

// The simulated Level Zero driver (sim/ze_driver): <build>/sim-ze/libze_gpuwatch_sim.so.1. A
// simulation whose scenario has Intel GPUs exports ZE_ENABLE_ALT_DRIVERS=<that file> and
// ZES_ENABLE_SYSMAN=1, so that Debian's libze_loader.so.1 loads it (docs/simulator.md).
inline constexpr const char* kZeDriverDirName = "sim-ze";
inline constexpr const char* kZeDriverFile = "libze_gpuwatch_sim.so.1";
// Whether the scenario has GPUs of each vendor (`vendor:` or the catalog model's).
struct ScenarioVendors {
  bool nvidia = false, amd = false, intel = false;
};
core::Result<ScenarioVendors> scenario_vendors(std::string_view name_or_path);
// Whether the scenario describes the host (`host: signals:`): its /proc and /sys are rendered
// under the simulated host root like the AMD/Intel files (kVendorFilesEnv is set for it too).
core::Result<bool> scenario_has_host_signals(std::string_view name_or_path);

// Writes the scenario's simulated host (`host:`: /proc, /dev, container markers) under ROOT
// (host_tree.hpp), the folder a simulation exports as GPUWATCH_HOST_ROOT.
core::Result<void> write_simulated_host(std::string_view name_or_path, const std::string& root);

// The scenario's `start_time` (ms since the epoch; `sim import --keep-time`), if it has one.
core::Result<std::optional<std::int64_t>> scenario_start_ms(std::string_view name_or_path);

}  // namespace gpuwatch::sim
