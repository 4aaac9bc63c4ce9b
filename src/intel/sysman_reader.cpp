#include "intel/sysman_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwatch::intel {
namespace {

bool known(const char* text) {
  const std::string_view s(text);
  return !s.empty() && s != "unknown" && s != "unkown";  // the header's own spelling of "unknown"
}

template <typename Handle, typename Enum>
std::vector<Handle> enumerate(Enum* fn, zes_device_handle_t dev) {
  std::vector<Handle> out;
  if (fn == nullptr) return out;
  std::uint32_t count = 0;
  if (fn(dev, &count, nullptr) != ZE_RESULT_SUCCESS || count == 0) return out;
  out.resize(count);
  if (fn(dev, &count, out.data()) != ZE_RESULT_SUCCESS) return {};
  out.resize(count);
  return out;
}

void enumerate_memory(const SysmanFunctions& f, SysmanDevice& d) {
  for (auto h : enumerate<zes_mem_handle_t>(f.zesDeviceEnumMemoryModules, d.handle)) {
    zes_mem_properties_t props{};
    props.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
    // System memory seen by the device is not the device's.
    if (f.zesMemoryGetProperties != nullptr && f.zesMemoryGetProperties(h, &props) == ZE_RESULT_SUCCESS &&
        props.location == ZES_MEM_LOC_SYSTEM) {
      continue;
    }
    d.memory.push_back(h);
  }
}

void enumerate_temperatures(const SysmanFunctions& f, SysmanDevice& d) {
  if (f.zesTemperatureGetProperties == nullptr) return;
  for (auto h : enumerate<zes_temp_handle_t>(f.zesDeviceEnumTemperatureSensors, d.handle)) {
    zes_temp_properties_t props{};
    props.stype = ZES_STRUCTURE_TYPE_TEMP_PROPERTIES;
    if (f.zesTemperatureGetProperties(h, &props) != ZE_RESULT_SUCCESS) continue;
    if (props.type == ZES_TEMP_SENSORS_GPU) d.gpu_sensors.push_back(h);
    if (props.type == ZES_TEMP_SENSORS_MEMORY) d.memory_sensors.push_back(h);
  }
}

void enumerate_engines(const SysmanFunctions& f, SysmanDevice& d) {
  if (f.zesEngineGetProperties == nullptr) return;
  std::vector<zes_engine_handle_t> all, busy;
  for (auto h : enumerate<zes_engine_handle_t>(f.zesDeviceEnumEngineGroups, d.handle)) {
    zes_engine_properties_t props{};
    props.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES;
    if (f.zesEngineGetProperties(h, &props) != ZE_RESULT_SUCCESS || props.onSubdevice) continue;
    if (props.type == ZES_ENGINE_GROUP_ALL) all.push_back(h);
    if (props.type == ZES_ENGINE_GROUP_COMPUTE_ALL || props.type == ZES_ENGINE_GROUP_RENDER_ALL) busy.push_back(h);
  }
  d.engines = all.empty() ? busy : all;
}

void enumerate_power(const SysmanFunctions& f, SysmanDevice& d) {
  const auto domains = enumerate<zes_pwr_handle_t>(f.zesDeviceEnumPowerDomains, d.handle);
  for (auto h : domains) {
    zes_power_properties_t props{};
    props.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES;
    if (f.zesPowerGetProperties != nullptr && f.zesPowerGetProperties(h, &props) == ZE_RESULT_SUCCESS &&
        props.onSubdevice) {
      continue;
    }
    d.power = h;
    return;
  }
}

std::optional<SysmanDevice> describe_device(const SysmanFunctions& f, ze_device_handle_t core_handle) {
  SysmanDevice d;
  d.handle = static_cast<zes_device_handle_t>(core_handle);  // ZES_ENABLE_SYSMAN=1: the same handle
  zes_pci_properties_t pci{};
  pci.stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES;
  if (f.zesDevicePciGetProperties == nullptr || f.zesDevicePciGetProperties(d.handle, &pci) != ZE_RESULT_SUCCESS) {
    return std::nullopt;  // no address: it cannot be matched to a card
  }
  d.address = {pci.address.domain, pci.address.bus, pci.address.device, pci.address.function};
  zes_device_properties_t props{};
  props.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  props.core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (f.zesDeviceGetProperties != nullptr && f.zesDeviceGetProperties(d.handle, &props) == ZE_RESULT_SUCCESS) {
    if (known(props.modelName)) d.name = props.modelName;
    if (known(props.serialNumber)) d.serial = props.serialNumber;
  }
  ze_device_properties_t core{};
  core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (f.zeDeviceGetProperties != nullptr && f.zeDeviceGetProperties(core_handle, &core) == ZE_RESULT_SUCCESS) {
    if (d.name.empty() && known(core.name)) d.name = core.name;
    const bool any = std::any_of(std::begin(core.uuid.id), std::end(core.uuid.id), [](std::uint8_t b) { return b != 0; });
    if (any) d.uuid = format_uuid(core.uuid.id);
  }
  enumerate_memory(f, d);
  enumerate_temperatures(f, d);
  enumerate_engines(f, d);
  enumerate_power(f, d);
  return d;
}

core::Error ze_error(const char* call, ze_result_t rc) {
  return core::Error{fmt::format("{} failed (ze_result_t 0x{:x})", call, static_cast<unsigned>(rc)), static_cast<int>(rc)};
}

}  // namespace

std::string format_uuid(const std::uint8_t (&b)[ZE_MAX_DEVICE_UUID_SIZE]) {
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

core::Result<SysmanSession> open_sysman(const SysmanFunctions& f) {
  if (f.zeInit == nullptr || f.zeDriverGet == nullptr || f.zeDeviceGet == nullptr) {
    return core::Error{"the loader lacks zeInit, zeDriverGet or zeDeviceGet", 0};
  }
  if (ze_result_t rc = f.zeInit(0); rc != ZE_RESULT_SUCCESS) return ze_error("zeInit", rc);
  std::uint32_t driver_count = 0;
  if (ze_result_t rc = f.zeDriverGet(&driver_count, nullptr); rc != ZE_RESULT_SUCCESS) return ze_error("zeDriverGet", rc);
  std::vector<ze_driver_handle_t> drivers(driver_count);
  if (driver_count > 0) {
    if (ze_result_t rc = f.zeDriverGet(&driver_count, drivers.data()); rc != ZE_RESULT_SUCCESS) {
      return ze_error("zeDriverGet", rc);
    }
    drivers.resize(driver_count);
  }
  SysmanSession session;
  for (auto driver : drivers) {
    if (session.driver_version.empty() && f.zeDriverGetProperties != nullptr) {
      ze_driver_properties_t props{};
      props.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
      if (f.zeDriverGetProperties(driver, &props) == ZE_RESULT_SUCCESS) {
        session.driver_version = fmt::format("{}", props.driverVersion);
      }
    }
    std::uint32_t count = 0;
    if (f.zeDeviceGet(driver, &count, nullptr) != ZE_RESULT_SUCCESS || count == 0) continue;
    std::vector<ze_device_handle_t> devices(count);
    if (f.zeDeviceGet(driver, &count, devices.data()) != ZE_RESULT_SUCCESS) continue;
    devices.resize(count);
    for (auto dev : devices) {
      if (auto d = describe_device(f, dev)) session.devices.push_back(std::move(*d));
    }
  }
  if (session.devices.empty()) return core::Error{"no Level Zero device (no driver for this GPU)", 0};
  return session;
}

const SysmanDevice* find_sysman_device(const SysmanSession& session, const PciAddress& address) {
  for (const auto& d : session.devices) {
    if (d.address == address) return &d;
  }
  return nullptr;
}

ze_result_t read_sysman_memory(const SysmanFunctions& f, const SysmanDevice& dev, SysmanMemory* out) {
  if (dev.memory.empty() || f.zesMemoryGetState == nullptr) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  SysmanMemory sum;
  for (auto h : dev.memory) {
    zes_mem_state_t state{};
    state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
    if (ze_result_t rc = f.zesMemoryGetState(h, &state); rc != ZE_RESULT_SUCCESS) return rc;
    sum.total += state.size;
    sum.used += state.size >= state.free ? state.size - state.free : 0;
  }
  *out = sum;
  return ZE_RESULT_SUCCESS;
}

ze_result_t read_sysman_temperature(const SysmanFunctions& f, const std::vector<zes_temp_handle_t>& sensors,
                                    double* celsius) {
  if (sensors.empty() || f.zesTemperatureGetState == nullptr) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  std::optional<double> hottest;
  for (auto h : sensors) {
    double t = 0;
    if (ze_result_t rc = f.zesTemperatureGetState(h, &t); rc != ZE_RESULT_SUCCESS) return rc;
    hottest = std::max(hottest.value_or(t), t);
  }
  *celsius = *hottest;
  return ZE_RESULT_SUCCESS;
}

ze_result_t read_sysman_engines(const SysmanFunctions& f, const SysmanDevice& dev, EngineCounters* out) {
  if (dev.engines.empty() || f.zesEngineGetActivity == nullptr) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  out->groups.resize(dev.engines.size());
  for (std::size_t i = 0; i < dev.engines.size(); ++i) {
    if (ze_result_t rc = f.zesEngineGetActivity(dev.engines[i], &out->groups[i]); rc != ZE_RESULT_SUCCESS) return rc;
  }
  return ZE_RESULT_SUCCESS;
}

std::optional<double> engine_utilization(const EngineCounters& before, const EngineCounters& after) {
  if (before.groups.size() != after.groups.size() || after.groups.empty()) return std::nullopt;
  std::optional<double> busiest;
  for (std::size_t i = 0; i < after.groups.size(); ++i) {
    const auto& a = before.groups[i];
    const auto& b = after.groups[i];
    if (b.timestamp <= a.timestamp || b.activeTime < a.activeTime) return std::nullopt;
    const double ratio = static_cast<double>(b.activeTime - a.activeTime) / static_cast<double>(b.timestamp - a.timestamp);
    busiest = std::max(busiest.value_or(0.0), std::min(ratio, 1.0));
  }
  return busiest;
}

ze_result_t read_sysman_energy(const SysmanFunctions& f, const SysmanDevice& dev, zes_power_energy_counter_t* out) {
  if (dev.power == nullptr || f.zesPowerGetEnergyCounter == nullptr) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  return f.zesPowerGetEnergyCounter(dev.power, out);
}

}  // namespace gpuwatch::intel
