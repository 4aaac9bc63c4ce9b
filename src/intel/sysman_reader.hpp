#pragma once
// Level Zero Sysman, for what the i915 and xe files lack (temperature on i915, memory total and
// used, engine utilization, energy where hwmon has none): the devices the loader's drivers
// serve, each matched to a card by PCI address, with its Sysman handles enumerated once, and
// the reads of one sample. Everything goes through a SysmanFunctions table (fakes in tests).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "intel/intel_card.hpp"
#include "intel/sysman_functions.hpp"

namespace gpuwatch::intel {

struct SysmanDevice {
  zes_device_handle_t handle = nullptr;
  PciAddress address;
  std::string name;    // zesDeviceGetProperties modelName, else the core properties' name; "" unknown
  std::string serial;  // "" unknown
  std::string uuid;    // the core properties' uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; "" unknown
  std::vector<zes_mem_handle_t> memory;           // the device's local memory modules
  std::vector<zes_temp_handle_t> gpu_sensors;     // ZES_TEMP_SENSORS_GPU
  std::vector<zes_temp_handle_t> memory_sensors;  // ZES_TEMP_SENSORS_MEMORY
  // ZES_ENGINE_GROUP_ALL when the device has it, else COMPUTE_ALL and RENDER_ALL (utilization:
  // the busiest of them).
  std::vector<zes_engine_handle_t> engines;
  zes_pwr_handle_t power = nullptr;  // the device-level power domain (energy)
};

struct SysmanSession {
  std::vector<SysmanDevice> devices;
  std::string driver_version;  // the first driver's zeDriverGetProperties driverVersion
};

// zeInit(0), then every driver's devices and their handles. An error names the failing call
// and its ze_result_t (core::Error::code); no device at all is an error too.
core::Result<SysmanSession> open_sysman(const SysmanFunctions& f);

// The device at ADDRESS, or nullptr.
const SysmanDevice* find_sysman_device(const SysmanSession& session, const PciAddress& address);

// A 16-byte uuid as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string format_uuid(const std::uint8_t (&bytes)[ZE_MAX_DEVICE_UUID_SIZE]);

struct SysmanMemory {
  std::uint64_t total = 0, used = 0;  // bytes, summed over the modules
};
ze_result_t read_sysman_memory(const SysmanFunctions& f, const SysmanDevice& dev, SysmanMemory* out);
// The hottest of SENSORS (°C); ZE_RESULT_ERROR_UNSUPPORTED_FEATURE when there is none.
ze_result_t read_sysman_temperature(const SysmanFunctions& f, const std::vector<zes_temp_handle_t>& sensors,
                                    double* celsius);

struct EngineCounters {
  std::vector<zes_engine_stats_t> groups;  // one per SysmanDevice::engines
};
ze_result_t read_sysman_engines(const SysmanFunctions& f, const SysmanDevice& dev, EngineCounters* out);
// The busiest group's Δactive/Δtimestamp between two readings; nullopt when they cannot be
// compared (no time passed, counters went back, different groups).
std::optional<double> engine_utilization(const EngineCounters& before, const EngineCounters& after);

ze_result_t read_sysman_energy(const SysmanFunctions& f, const SysmanDevice& dev, zes_power_energy_counter_t* out);

}  // namespace gpuwatch::intel
