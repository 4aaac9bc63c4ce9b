// Sysman's per-domain functions: memory, temperature, engines, power, frequency. Each simulated
// GPU has one memory module, a GPU and a memory temperature sensor (those its model has), the
// engine groups ALL and COMPUTE_ALL (the scenario's load is compute), one power domain (the card)
// and one frequency domain (the GPU core).
#include <cmath>
#include <cstring>
#include <iterator>

#include "sim/ze_driver/ze_functions.hpp"

namespace gpuwatch::sim::ze {
namespace {

constexpr zes_temp_sensors_t kSensors[] = {ZES_TEMP_SENSORS_GPU, ZES_TEMP_SENSORS_MEMORY};
constexpr zes_engine_group_t kEngineGroups[] = {ZES_ENGINE_GROUP_ALL, ZES_ENGINE_GROUP_COMPUTE_ALL};
constexpr std::size_t kSensorCount = std::size(kSensors);
constexpr std::size_t kGroupCount = std::size(kEngineGroups);

struct DomainHandles {
  _zes_mem_handle_t mem[kMaxDevices];
  _zes_temp_handle_t temp[kMaxDevices][kSensorCount];
  _zes_engine_handle_t engine[kMaxDevices][kGroupCount];
  _zes_pwr_handle_t power[kMaxDevices];
  _zes_freq_handle_t freq[kMaxDevices];
  DomainHandles() {
    for (unsigned i = 0; i < kMaxDevices; ++i) {
      mem[i] = {i};
      power[i] = {i};
      freq[i] = {i};
      for (std::size_t s = 0; s < kSensorCount; ++s) temp[i][s] = {i, kSensors[s]};
      for (std::size_t g = 0; g < kGroupCount; ++g) engine[i][g] = {i, kEngineGroups[g]};
    }
  }
};
DomainHandles g_domains;

// The device of domain handle H when H is one of the handles in the array starting at FIRST.
template <class Domain>
ze_device_handle_t device_of_domain(const Domain* h, const Domain* first, std::size_t count) {
  const auto p = reinterpret_cast<std::uintptr_t>(h);
  const auto base = reinterpret_cast<std::uintptr_t>(first);
  if (!h || p < base || p >= base + count * sizeof(Domain) || (p - base) % sizeof(Domain) != 0) return nullptr;
  return ZeState::get().device(h->index);  // null when the index is past the scenario's devices
}

ze_device_handle_t device_of(zes_mem_handle_t h) { return device_of_domain(h, &g_domains.mem[0], kMaxDevices); }
ze_device_handle_t device_of(zes_temp_handle_t h) {
  return device_of_domain(h, &g_domains.temp[0][0], kMaxDevices * kSensorCount);
}
ze_device_handle_t device_of(zes_engine_handle_t h) {
  return device_of_domain(h, &g_domains.engine[0][0], kMaxDevices * kGroupCount);
}
ze_device_handle_t device_of(zes_pwr_handle_t h) { return device_of_domain(h, &g_domains.power[0], kMaxDevices); }
ze_device_handle_t device_of(zes_freq_handle_t h) { return device_of_domain(h, &g_domains.freq[0], kMaxDevices); }

template <class Struct>
void clear_domain_struct(Struct* p) {
  const auto stype = p->stype;
  auto* next = p->pNext;
  std::memset(static_cast<void*>(p), 0, sizeof(*p));
  p->stype = stype;
  p->pNext = next;
}

std::optional<double> temperature_of(const DeviceView& v, zes_temp_sensors_t sensor) {
  return v.number(sensor == ZES_TEMP_SENSORS_MEMORY ? Key::TemperatureMemory : Key::TemperatureGpu);
}

int32_t milliwatts_or_unknown(const DeviceView& v, Key key) {
  auto w = v.number(key);
  return w ? static_cast<int32_t>(std::lround(*w * 1000)) : -1;
}

// NVML's clocks_event_reasons bits (the scenario's vocabulary) in Level Zero's words.
zes_freq_throttle_reason_flags_t throttle_reasons(const DeviceView& v) {
  const auto active = v.number(Key::ClocksEventReasonsActive);
  if (!active) return 0;
  const auto bits = static_cast<std::uint64_t>(*active);
  zes_freq_throttle_reason_flags_t out = 0;
  if (bits & 0x4) out |= ZES_FREQ_THROTTLE_REASON_FLAG_AVE_PWR_CAP;          // sw power cap
  if (bits & 0x80) out |= ZES_FREQ_THROTTLE_REASON_FLAG_PSU_ALERT;           // hw power brake
  if (bits & (0x20 | 0x40)) out |= ZES_FREQ_THROTTLE_REASON_FLAG_THERMAL_LIMIT;  // sw/hw thermal
  if (bits & 0x2) out |= ZES_FREQ_THROTTLE_REASON_FLAG_SW_RANGE;             // applications clocks
  return out;
}

}  // namespace

// ---- memory

ze_result_t enum_memory_modules(zes_device_handle_t device, uint32_t* count, zes_mem_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    std::vector<zes_mem_handle_t> items;
    if (v.number(Key::MemoryTotal)) items.push_back(&g_domains.mem[v.index()]);
    return enumerate(items, count, out);
  });
}

ze_result_t memory_get_properties(zes_mem_handle_t mem, zes_mem_properties_t* p) {
  return with_device(device_of(mem), [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(p);
    const std::string* name = v.text(Key::Name);
    // Data Center GPU Max carries HBM2e; the Arc boards GDDR6.
    p->type = name && name->find("Max") != std::string::npos ? ZES_MEM_TYPE_HBM : ZES_MEM_TYPE_GDDR6;
    p->onSubdevice = false;
    p->location = ZES_MEM_LOC_DEVICE;
    if (auto mib = v.number(Key::MemoryTotal)) p->physicalSize = static_cast<uint64_t>(*mib * kBytesPerMiB);
    p->busWidth = -1;
    p->numChannels = -1;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t memory_get_state(zes_mem_handle_t mem, zes_mem_state_t* s) {
  return with_device(device_of(mem), [&](const DeviceView& v) {
    if (!s) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto total = v.number(Key::MemoryTotal);
    const auto used = v.number(Key::MemoryUsed);
    if (!total || !used) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    clear_domain_struct(s);
    s->health = ZES_MEM_HEALTH_OK;
    s->size = static_cast<uint64_t>(*total * kBytesPerMiB);
    const double free_mib = *total - *used;
    s->free = free_mib > 0 ? static_cast<uint64_t>(free_mib * kBytesPerMiB) : 0;
    return ZE_RESULT_SUCCESS;
  });
}

// ---- temperature

ze_result_t enum_temperature_sensors(zes_device_handle_t device, uint32_t* count, zes_temp_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    std::vector<zes_temp_handle_t> items;
    for (std::size_t s = 0; s < kSensorCount; ++s)
      if (temperature_of(v, kSensors[s])) items.push_back(&g_domains.temp[v.index()][s]);
    return enumerate(items, count, out);
  });
}

ze_result_t temperature_get_properties(zes_temp_handle_t temp, zes_temp_properties_t* p) {
  return with_device(device_of(temp), [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(p);
    p->type = temp->sensor;
    p->onSubdevice = false;
    const auto max = temp->sensor == ZES_TEMP_SENSORS_MEMORY ? v.number(Key::TemperatureMemoryMaxOperating)
                                                             : v.number(Key::TemperatureGpuShutdown);
    p->maxTemperature = max ? *max : 0;
    p->isCriticalTempSupported = false;
    p->isThreshold1Supported = false;
    p->isThreshold2Supported = false;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t temperature_get_state(zes_temp_handle_t temp, double* celsius) {
  return with_device(device_of(temp), [&](const DeviceView& v) {
    if (!celsius) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto c = temperature_of(v, temp->sensor);
    if (!c) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    *celsius = *c;
    return ZE_RESULT_SUCCESS;
  });
}

// ---- engines

ze_result_t enum_engine_groups(zes_device_handle_t device, uint32_t* count, zes_engine_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    std::vector<zes_engine_handle_t> items;
    for (std::size_t g = 0; g < kGroupCount; ++g) items.push_back(&g_domains.engine[v.index()][g]);
    return enumerate(items, count, out);
  });
}

ze_result_t engine_get_properties(zes_engine_handle_t engine, zes_engine_properties_t* p) {
  return with_device(device_of(engine), [&](const DeviceView&) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(p);
    p->type = engine->group;
    p->onSubdevice = false;
    return ZE_RESULT_SUCCESS;
  });
}

// activeTime is the integral of the GPU's utilization (BusyIntegral), so between any two reads
// Δactive/Δtimestamp is the average utilization over that interval. Both in µs of the wall clock.
ze_result_t engine_get_activity(zes_engine_handle_t engine, zes_engine_stats_t* stats) {
  return with_device(device_of(engine), [&](const DeviceView& v) {
    if (!stats) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    auto& st = ZeState::get();
    const double t = st.exact_t();
    stats->activeTime = static_cast<uint64_t>(std::llround(st.wall_seconds(st.busy_seconds(v.index(), t)) * 1e6));
    stats->timestamp = st.timestamp_us(t);
    return ZE_RESULT_SUCCESS;
  });
}

// ---- power

ze_result_t enum_power_domains(zes_device_handle_t device, uint32_t* count, zes_pwr_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    return enumerate(std::vector<zes_pwr_handle_t>{&g_domains.power[v.index()]}, count, out);
  });
}

ze_result_t device_get_card_power_domain(zes_device_handle_t device, zes_pwr_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    if (!out) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *out = &g_domains.power[v.index()];
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t power_get_properties(zes_pwr_handle_t power, zes_power_properties_t* p) {
  return with_device(device_of(power), [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(p);
    p->onSubdevice = false;
    p->canControl = false;
    p->isEnergyThresholdSupported = false;
    p->defaultLimit = milliwatts_or_unknown(v, Key::PowerDefaultLimit);
    p->minLimit = milliwatts_or_unknown(v, Key::PowerMinLimit);
    p->maxLimit = milliwatts_or_unknown(v, Key::PowerMaxLimit);
    return ZE_RESULT_SUCCESS;
  });
}

// The energy counter is the scenario's energy.total (the integral of power.draw, as NVML's total
// energy) on the wall clock, as hwmon's energy1_input in the simulated sysfs tree: Δenergy/Δtimestamp
// is the average power.
ze_result_t power_get_energy_counter(zes_pwr_handle_t power, zes_power_energy_counter_t* energy) {
  return with_device(device_of(power), [&](const DeviceView& v) {
    if (!energy) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto joules = v.number(Key::EnergyTotal);
    if (!joules) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    auto& st = ZeState::get();
    energy->energy = static_cast<uint64_t>(std::llround(st.wall_seconds(*joules) * 1e6));
    energy->timestamp = st.timestamp_us(v.t());
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t power_get_limits(zes_pwr_handle_t power, zes_power_sustained_limit_t* sustained,
                             zes_power_burst_limit_t* burst, zes_power_peak_limit_t* peak) {
  return with_device(device_of(power), [&](const DeviceView& v) {
    if (sustained) {
      const int32_t mw = milliwatts_or_unknown(v, Key::PowerLimit);
      sustained->enabled = mw >= 0;
      sustained->power = mw;
      sustained->interval = 28000;  // ms: PL1's usual time window
    }
    if (burst) *burst = {false, -1};
    if (peak) *peak = {-1, -1};
    return ZE_RESULT_SUCCESS;
  });
}

// ---- frequency

ze_result_t enum_frequency_domains(zes_device_handle_t device, uint32_t* count, zes_freq_handle_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    return enumerate(std::vector<zes_freq_handle_t>{&g_domains.freq[v.index()]}, count, out);
  });
}

ze_result_t frequency_get_properties(zes_freq_handle_t freq, zes_freq_properties_t* p) {
  return with_device(device_of(freq), [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(p);
    p->type = ZES_FREQ_DOMAIN_GPU;
    p->onSubdevice = false;
    p->canControl = false;
    p->isThrottleEventSupported = false;
    const auto max = v.number(Key::ClocksMaxGraphics);
    p->min = -1;  // the scenario has no minimum clock
    p->max = max ? *max : -1;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t frequency_get_state(zes_freq_handle_t freq, zes_freq_state_t* s) {
  return with_device(device_of(freq), [&](const DeviceView& v) {
    if (!s) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    clear_domain_struct(s);
    const auto actual = v.number(Key::ClocksCurrentGraphics);
    const auto max = v.number(Key::ClocksMaxGraphics);
    s->currentVoltage = -1;
    s->actual = actual ? *actual : -1;
    s->request = s->actual;
    s->tdp = max ? *max : -1;
    s->efficient = -1;
    s->throttleReasons = throttle_reasons(v);
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace gpuwatch::sim::ze
