// Temperature, fan, power, energy, clocks, performance state, throttle reasons, PCIe.
#include <cstdlib>

#include "sim/driver/driver_state.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

nvmlReturn_t uint_key(Fn fn, nvmlDevice_t device, Key key, double scale, unsigned* out) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(key, scale, *out);
  });
}

nvmlReturn_t ull_key(Fn fn, nvmlDevice_t device, Key key, double scale, unsigned long long* out) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    return v.ull(key, scale, *out);
  });
}

bool clock_key(int type, bool max, Key& key) {
  switch (type) {
    case NVML_CLOCK_GRAPHICS: key = max ? Key::ClocksMaxGraphics : Key::ClocksCurrentGraphics; return true;
    case NVML_CLOCK_SM: key = max ? Key::ClocksMaxSm : Key::ClocksCurrentSm; return true;
    case NVML_CLOCK_MEM: key = max ? Key::ClocksMaxMemory : Key::ClocksCurrentMemory; return true;
    case NVML_CLOCK_VIDEO: key = max ? Key::ClocksMaxVideo : Key::ClocksCurrentVideo; return true;
    default: return false;
  }
}

nvmlReturn_t clock(Fn fn, nvmlDevice_t device, int type, bool max, unsigned* out) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    Key key{};
    if (!out || !clock_key(type, max, key)) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(key, 1, *out);
  });
}

nvmlReturn_t app_clock(Fn fn, nvmlDevice_t device, int type, bool def, unsigned* out) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    Key key{};
    if (type == NVML_CLOCK_GRAPHICS || type == NVML_CLOCK_SM)
      key = def ? Key::ClocksDefaultApplicationsGraphics : Key::ClocksApplicationsGraphics;
    else if (type == NVML_CLOCK_MEM)
      key = def ? Key::ClocksDefaultApplicationsMemory : Key::ClocksApplicationsMemory;
    else
      return NVML_ERROR_NOT_SUPPORTED;
    return v.uint(key, 1, *out);
  });
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* temp) noexcept {
  return with_device(Fn::nvmlDeviceGetTemperature, device, [&](const View& v) -> nvmlReturn_t {
    if (!temp || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(Key::TemperatureGpu, 1, *temp);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, int type, unsigned int* temp) noexcept {
  return with_device(Fn::nvmlDeviceGetTemperatureThreshold, device, [&](const View& v) -> nvmlReturn_t {
    if (!temp) return NVML_ERROR_INVALID_ARGUMENT;
    switch (type) {
      case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: return v.uint(Key::TemperatureGpuShutdown, 1, *temp);
      case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: return v.uint(Key::TemperatureGpuSlowdown, 1, *temp);
      case NVML_TEMPERATURE_THRESHOLD_MEM_MAX: return v.uint(Key::TemperatureMemoryMaxOperating, 1, *temp);
      case NVML_TEMPERATURE_THRESHOLD_GPU_MAX: return v.uint(Key::TemperatureGpuMaxOperating, 1, *temp);
      case 4: case 5: case 6: return NVML_ERROR_NOT_SUPPORTED;  // acoustic thresholds
      default: return NVML_ERROR_INVALID_ARGUMENT;
    }
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int* speed) noexcept {
  return uint_key(Fn::nvmlDeviceGetFanSpeed, device, Key::FanSpeed, 1, speed);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int* speed) noexcept {
  return with_device(Fn::nvmlDeviceGetFanSpeed_v2, device, [&](const View& v) -> nvmlReturn_t {
    if (!speed) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned fans = 0;
    if (v.uint(Key::FanCount, 1, fans) != NVML_SUCCESS) fans = 1;
    double s = 0;
    if (nvmlReturn_t r = v.number(Key::FanSpeed, s); r != NVML_SUCCESS) return r;
    if (fan >= fans) return NVML_ERROR_INVALID_ARGUMENT;
    *speed = static_cast<unsigned>(s);
    return NVML_SUCCESS;
  });
}
#endif
GW_EXPORT nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int* fans) noexcept {
  return with_device(Fn::nvmlDeviceGetNumFans, device, [&](const View& v) -> nvmlReturn_t {
    if (!fans) return NVML_ERROR_INVALID_ARGUMENT;
    double s = 0;
    if (nvmlReturn_t r = v.number(Key::FanSpeed, s); r != NVML_SUCCESS) return r;
    return v.uint(Key::FanCount, 1, *fans);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) noexcept {
  return uint_key(Fn::nvmlDeviceGetPowerUsage, device, Key::PowerDraw, 1000, power);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int* limit) noexcept {
  return uint_key(Fn::nvmlDeviceGetPowerManagementLimit, device, Key::PowerLimit, 1000, limit);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int* limit) noexcept {
  return uint_key(Fn::nvmlDeviceGetPowerManagementDefaultLimit, device, Key::PowerDefaultLimit, 1000, limit);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int* min_limit,
                                                                     unsigned int* max_limit) noexcept {
  return with_device(Fn::nvmlDeviceGetPowerManagementLimitConstraints, device, [&](const View& v) -> nvmlReturn_t {
    if (!min_limit || !max_limit) return NVML_ERROR_INVALID_ARGUMENT;
    if (nvmlReturn_t r = v.uint(Key::PowerMinLimit, 1000, *min_limit); r != NVML_SUCCESS) return r;
    return v.uint(Key::PowerMaxLimit, 1000, *max_limit);
  });
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit) noexcept {
  return uint_key(Fn::nvmlDeviceGetEnforcedPowerLimit, device, Key::EnforcedPowerLimit, 1000, limit);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy) noexcept {
  return ull_key(Fn::nvmlDeviceGetTotalEnergyConsumption, device, Key::EnergyTotal, 1000, energy);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* clock_mhz) noexcept {
  return clock(Fn::nvmlDeviceGetClockInfo, device, type, false, clock_mhz);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int* clock_mhz) noexcept {
  return clock(Fn::nvmlDeviceGetMaxClockInfo, device, type, true, clock_mhz);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, int type, unsigned int* clock_mhz) noexcept {
  return app_clock(Fn::nvmlDeviceGetApplicationsClock, device, type, false, clock_mhz);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, int type, unsigned int* clock_mhz) noexcept {
  return app_clock(Fn::nvmlDeviceGetDefaultApplicationsClock, device, type, true, clock_mhz);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int* pstate) noexcept {
  return with_device(Fn::nvmlDeviceGetPerformanceState, device, [&](const View& v) -> nvmlReturn_t {
    if (!pstate) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() >= 0) return NVML_ERROR_NOT_SUPPORTED;
    if (v.sample().has.test(key_index(Key::Pstate))) {
      *pstate = static_cast<int>(v.sample().num[key_index(Key::Pstate)]);
      return NVML_SUCCESS;
    }
    const Value& val = v.sim().static_value(v.gpu(), Key::Pstate);
    if (val.is_error()) return val.error;
    if (val.is_absent()) return NVML_ERROR_NOT_SUPPORTED;
    *pstate = val.text.size() > 1 && val.text[0] == 'P' ? std::atoi(val.text.c_str() + 1) : NVML_PSTATE_UNKNOWN;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) noexcept {
  return ull_key(Fn::nvmlDeviceGetCurrentClocksThrottleReasons, device, Key::ClocksEventReasonsActive, 1, reasons);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) noexcept {
  return ull_key(Fn::nvmlDeviceGetSupportedClocksThrottleReasons, device, Key::ClocksEventReasonsSupported, 1, reasons);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) noexcept {
  return ull_key(Fn::nvmlDeviceGetCurrentClocksEventReasons, device, Key::ClocksEventReasonsActive, 1, reasons);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) noexcept {
  return ull_key(Fn::nvmlDeviceGetSupportedClocksEventReasons, device, Key::ClocksEventReasonsSupported, 1, reasons);
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, int policy, nvmlViolationTime_t* viol) noexcept {
  return with_device(Fn::nvmlDeviceGetViolationStatus, device, [&](const View& v) -> nvmlReturn_t {
    if (!viol) return NVML_ERROR_INVALID_ARGUMENT;
    Key key{};
    switch (policy) {
      case NVML_PERF_POLICY_POWER: key = Key::ClocksEventReasonsCountersSwPowerCap; break;
      case NVML_PERF_POLICY_THERMAL: key = Key::ClocksEventReasonsCountersSwThermalSlowdown; break;
      case NVML_PERF_POLICY_SYNC_BOOST: key = Key::ClocksEventReasonsCountersSyncBoost; break;
      default: return NVML_ERROR_NOT_SUPPORTED;
    }
    unsigned long long ns = 0;
    if (nvmlReturn_t r = v.ull(key, 1000, ns); r != NVML_SUCCESS) return r;  // us -> ns
    viol->violationTime = ns;
    viol->referenceTime = DriverState::get().now_us();
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) noexcept {
  return uint_key(Fn::nvmlDeviceGetCurrPcieLinkGeneration, device, Key::PcieLinkGenCurrent, 1, gen);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* width) noexcept {
  return uint_key(Fn::nvmlDeviceGetCurrPcieLinkWidth, device, Key::PcieLinkWidthCurrent, 1, width);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) noexcept {
  return uint_key(Fn::nvmlDeviceGetMaxPcieLinkGeneration, device, Key::PcieLinkGenMax, 1, gen);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) noexcept {
  return uint_key(Fn::nvmlDeviceGetGpuMaxPcieLinkGeneration, device, Key::PcieLinkGenGpumax, 1, gen);
}
#endif
GW_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int* width) noexcept {
  return uint_key(Fn::nvmlDeviceGetMaxPcieLinkWidth, device, Key::PcieLinkWidthMax, 1, width);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int* value) noexcept {
  return with_device(Fn::nvmlDeviceGetPcieThroughput, device, [&](const View& v) -> nvmlReturn_t {
    if (!value) return NVML_ERROR_INVALID_ARGUMENT;
    if (counter == NVML_PCIE_UTIL_TX_BYTES) return v.uint(Key::PcieTxThroughput, 1, *value);
    if (counter == NVML_PCIE_UTIL_RX_BYTES) return v.uint(Key::PcieRxThroughput, 1, *value);
    return NVML_ERROR_INVALID_ARGUMENT;
  });
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int* value) noexcept {
  return uint_key(Fn::nvmlDeviceGetPcieReplayCounter, device, Key::PcieReplayCounter, 1, value);
}
