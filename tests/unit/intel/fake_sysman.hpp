#pragma once
// Level Zero Sysman fakes for the Intel backend's tests: a SysmanFunctions table whose entries
// serve the devices in fake_sysman::state (plain functions, as the loader's would be).
#include <cstring>
#include <string>
#include <vector>

#include "intel/sysman_functions.hpp"

namespace fake_sysman {

struct Memory {
  zes_mem_loc_t location = ZES_MEM_LOC_DEVICE;
  std::uint64_t size = 0, free = 0;
};
struct Sensor {
  zes_temp_sensors_t type = ZES_TEMP_SENSORS_GPU;
  double celsius = 0;
};
struct Engine {
  zes_engine_group_t type = ZES_ENGINE_GROUP_ALL;
  bool on_subdevice = false;
  zes_engine_stats_t stats{};
};
struct Device {
  zes_pci_address_t address{};
  std::string model, core_name, serial;
  std::uint8_t uuid[ZE_MAX_DEVICE_UUID_SIZE] = {};
  std::vector<Memory> memory;
  std::vector<Sensor> sensors;
  std::vector<Engine> engines;
  bool has_power = false;
  zes_power_energy_counter_t energy{};
};
struct State {
  ze_result_t init_result = ZE_RESULT_SUCCESS;
  std::vector<Device> devices;
  int init_calls = 0;
};
inline State state;

inline Device* device_of(const void* h) { return static_cast<Device*>(const_cast<void*>(h)); }

template <typename Handle, typename Item>
ze_result_t list(std::vector<Item>& items, std::uint32_t* count, Handle* out) {
  if (out == nullptr) {
    *count = static_cast<std::uint32_t>(items.size());
    return ZE_RESULT_SUCCESS;
  }
  for (std::uint32_t i = 0; i < *count && i < items.size(); ++i) out[i] = reinterpret_cast<Handle>(&items[i]);
  return ZE_RESULT_SUCCESS;
}

inline gpuwatch::intel::SysmanFunctions functions() {
  gpuwatch::intel::SysmanFunctions f;
  f.zeInit = [](ze_init_flags_t) {
    ++state.init_calls;
    return state.init_result;
  };
  f.zeDriverGet = [](std::uint32_t* count, ze_driver_handle_t* out) {
    if (out != nullptr && *count > 0) out[0] = reinterpret_cast<ze_driver_handle_t>(&state);
    *count = 1;
    return ZE_RESULT_SUCCESS;
  };
  f.zeDriverGetProperties = [](ze_driver_handle_t, ze_driver_properties_t* p) {
    p->driverVersion = 16842752;
    return ZE_RESULT_SUCCESS;
  };
  f.zeDeviceGet = [](ze_driver_handle_t, std::uint32_t* count, ze_device_handle_t* out) {
    return list(state.devices, count, out);
  };
  f.zeDeviceGetProperties = [](ze_device_handle_t h, ze_device_properties_t* p) {
    std::snprintf(p->name, sizeof p->name, "%s", device_of(h)->core_name.c_str());
    std::memcpy(p->uuid.id, device_of(h)->uuid, sizeof p->uuid.id);
    return ZE_RESULT_SUCCESS;
  };
  f.zesDeviceGetProperties = [](zes_device_handle_t h, zes_device_properties_t* p) {
    std::snprintf(p->modelName, sizeof p->modelName, "%s", device_of(h)->model.c_str());
    std::snprintf(p->serialNumber, sizeof p->serialNumber, "%s", device_of(h)->serial.c_str());
    return ZE_RESULT_SUCCESS;
  };
  f.zesDevicePciGetProperties = [](zes_device_handle_t h, zes_pci_properties_t* p) {
    p->address = device_of(h)->address;
    return ZE_RESULT_SUCCESS;
  };
  f.zesDeviceEnumMemoryModules = [](zes_device_handle_t h, std::uint32_t* count, zes_mem_handle_t* out) {
    return list(device_of(h)->memory, count, out);
  };
  f.zesMemoryGetProperties = [](zes_mem_handle_t h, zes_mem_properties_t* p) {
    p->location = reinterpret_cast<Memory*>(h)->location;
    return ZE_RESULT_SUCCESS;
  };
  f.zesMemoryGetState = [](zes_mem_handle_t h, zes_mem_state_t* s) {
    s->size = reinterpret_cast<Memory*>(h)->size;
    s->free = reinterpret_cast<Memory*>(h)->free;
    return ZE_RESULT_SUCCESS;
  };
  f.zesDeviceEnumTemperatureSensors = [](zes_device_handle_t h, std::uint32_t* count, zes_temp_handle_t* out) {
    return list(device_of(h)->sensors, count, out);
  };
  f.zesTemperatureGetProperties = [](zes_temp_handle_t h, zes_temp_properties_t* p) {
    p->type = reinterpret_cast<Sensor*>(h)->type;
    return ZE_RESULT_SUCCESS;
  };
  f.zesTemperatureGetState = [](zes_temp_handle_t h, double* c) {
    *c = reinterpret_cast<Sensor*>(h)->celsius;
    return ZE_RESULT_SUCCESS;
  };
  f.zesDeviceEnumEngineGroups = [](zes_device_handle_t h, std::uint32_t* count, zes_engine_handle_t* out) {
    return list(device_of(h)->engines, count, out);
  };
  f.zesEngineGetProperties = [](zes_engine_handle_t h, zes_engine_properties_t* p) {
    p->type = reinterpret_cast<Engine*>(h)->type;
    p->onSubdevice = reinterpret_cast<Engine*>(h)->on_subdevice;
    return ZE_RESULT_SUCCESS;
  };
  f.zesEngineGetActivity = [](zes_engine_handle_t h, zes_engine_stats_t* s) {
    *s = reinterpret_cast<Engine*>(h)->stats;
    return ZE_RESULT_SUCCESS;
  };
  f.zesDeviceEnumPowerDomains = [](zes_device_handle_t h, std::uint32_t* count, zes_pwr_handle_t* out) {
    if (!device_of(h)->has_power) {
      *count = 0;
      return ZE_RESULT_SUCCESS;
    }
    if (out != nullptr) out[0] = reinterpret_cast<zes_pwr_handle_t>(device_of(h));
    *count = 1;
    return ZE_RESULT_SUCCESS;
  };
  f.zesPowerGetProperties = [](zes_pwr_handle_t, zes_power_properties_t* p) {
    p->onSubdevice = false;
    return ZE_RESULT_SUCCESS;
  };
  f.zesPowerGetEnergyCounter = [](zes_pwr_handle_t h, zes_power_energy_counter_t* c) {
    *c = reinterpret_cast<Device*>(h)->energy;
    return ZE_RESULT_SUCCESS;
  };
  return f;
}

// A Max 1550 at 0000:3a:00.0: two memory modules (64 GiB each) and one system module, GPU and
// memory sensors, the ALL engine group and a COMPUTE_ALL one.
inline Device max_1550() {
  Device d;
  d.address = {0, 0x3a, 0, 0};
  d.model = "Intel(R) Data Center GPU Max 1550";
  d.core_name = "Intel(R) Data Center GPU Max 1550 core";
  d.serial = "LQAC12345678";
  for (int i = 0; i < 16; ++i) d.uuid[i] = static_cast<std::uint8_t>(0x10 + i);
  d.memory = {{ZES_MEM_LOC_DEVICE, 64ull << 30, 48ull << 30}, {ZES_MEM_LOC_DEVICE, 64ull << 30, 60ull << 30},
              {ZES_MEM_LOC_SYSTEM, 512ull << 30, 500ull << 30}};
  d.sensors = {{ZES_TEMP_SENSORS_GPU, 55.4}, {ZES_TEMP_SENSORS_GPU, 58.6}, {ZES_TEMP_SENSORS_MEMORY, 47.0},
               {ZES_TEMP_SENSORS_GLOBAL, 90.0}};
  d.engines = {{ZES_ENGINE_GROUP_ALL, false, {1000, 10000}}, {ZES_ENGINE_GROUP_COMPUTE_ALL, false, {0, 10000}}};
  return d;
}

}  // namespace fake_sysman
