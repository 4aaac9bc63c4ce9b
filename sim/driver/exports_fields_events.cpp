// Field values and the event-set API (Xid, ECC events).
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "sim/driver/driver_state.hpp"
#include "sim/engine/recovery_action.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

struct nvmlEventSet_st {
  struct Registration {
    nvmlDevice_t device;
    unsigned gpu;
    unsigned long long types;
    std::size_t next;  // index into the GPU's event schedule
  };
  std::mutex mutex;
  std::vector<Registration> registrations;
};

namespace {

constexpr unsigned long long kSupportedEvents = nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError |
                                                nvmlEventTypePState | nvmlEventTypeXidCriticalError;

std::mutex g_sets_mutex;
std::set<nvmlEventSet_st*>& live_sets() {
  static auto* sets = new std::set<nvmlEventSet_st*>();
  return *sets;
}

bool is_live(nvmlEventSet_t set) {
  std::lock_guard lock(g_sets_mutex);
  return live_sets().count(set) > 0;
}

// gpu_recovery_action: a number set by the scenario's events (evaluate), else the static
// text nvidia-smi prints ("None", "GPU Reset", "Node Reboot", "Drain P2P", "Drain and Reset").
nvmlReturn_t recovery_action(const View& v, unsigned& out) {
#ifdef GPUWATCH_SIM_LEGACY
  (void)v, (void)out;
  return NVML_ERROR_NOT_SUPPORTED;  // an old driver (r418-era) does not know field 230
#else
  double x = 0;
  nvmlReturn_t r = v.number(Key::GpuRecoveryAction, x);
  if (r == NVML_SUCCESS) {
    out = static_cast<unsigned>(x);
    return r;
  }
  const std::string* s = nullptr;
  if (r != NVML_ERROR_NOT_SUPPORTED || v.text(Key::GpuRecoveryAction, s) != NVML_SUCCESS) return r;
  if (auto code = recovery_action_code(*s)) {
    out = *code;
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_SUPPORTED;
#endif
}

// NVLink data transmitted / received (issue 25), KiB since the scenario began: the integral of the
// GPU's nvlink.tx/rx_throughput (KB/s) over the phases (DynamicSample::nvlink_kib), on the wall
// clock, stamped with the time of the sample it comes from, so that any two reads give the mean
// rate between them. Boards without NVLink (and MIG devices): the key's error, NOT_SUPPORTED.
// Only scope UINT_MAX (every link) is modelled; a link id is NOT_SUPPORTED.
void nvlink_counter(const View& v, nvmlFieldValue_t& f) {
  const bool tx = f.fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  double rate = 0;
  f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  f.value.ullVal = 0;
  f.nvmlReturn = v.number(tx ? Key::NvlinkTxThroughput : Key::NvlinkRxThroughput, rate);
  if (f.nvmlReturn != NVML_SUCCESS) return;
  if (f.scopeId != UINT_MAX) {
    f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return;
  }
  const DriverState& st = DriverState::get();
  const double kib = v.sample().nvlink_kib[tx ? 0 : 1] / std::max(1e-9, st.time_scale());
  f.value.ullVal = static_cast<unsigned long long>(std::max(0.0, std::floor(kib)));
  f.timestamp = static_cast<long long>(st.us_of_t(v.sample().t));
}

void field_value(const View& v, nvmlFieldValue_t& f, std::uint64_t now_us) {
  f.timestamp = static_cast<long long>(now_us);
  f.latencyUsec = 0;
  unsigned int u = 0;
  unsigned long long ull = 0;
  auto as_uint = [&](Key k, double scale) {
    f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    f.nvmlReturn = v.uint(k, scale, u);
    f.value.uiVal = u;
  };
  auto as_ull = [&](Key k, double scale) {
    f.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    f.nvmlReturn = v.ull(k, scale, ull);
    f.value.ullVal = ull;
  };
  switch (f.fieldId) {
    case 1: { int m = 0; f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT; f.nvmlReturn = v.flag(Key::EccModeCurrent, m); f.value.uiVal = static_cast<unsigned>(m); break; }
    case 2: { int m = 0; f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT; f.nvmlReturn = v.flag(Key::EccModePending, m); f.value.uiVal = static_cast<unsigned>(m); break; }
    case 74: as_ull(Key::ClocksEventReasonsCountersSwPowerCap, 1000); break;
    case 75: as_ull(Key::ClocksEventReasonsCountersSwThermalSlowdown, 1000); break;
    case 76: as_ull(Key::ClocksEventReasonsCountersSyncBoost, 1000); break;
    case NVML_FI_DEV_MEMORY_TEMP: as_uint(Key::TemperatureMemory, 1); break;
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION: as_ull(Key::EnergyTotal, 1000); break;
    case NVML_FI_DEV_PCIE_REPLAY_COUNTER: as_uint(Key::PcieReplayCounter, 1); break;
    case NVML_FI_DEV_REMAPPED_COR: as_uint(Key::RemappedRowsCorrectable, 1); break;
    case NVML_FI_DEV_REMAPPED_UNC: as_uint(Key::RemappedRowsUncorrectable, 1); break;
    case NVML_FI_DEV_REMAPPED_PENDING: { int m = 0; f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT; f.nvmlReturn = v.flag(Key::RemappedRowsPending, m); f.value.uiVal = static_cast<unsigned>(m); break; }
    case NVML_FI_DEV_REMAPPED_FAILURE: { int m = 0; f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT; f.nvmlReturn = v.flag(Key::RemappedRowsFailure, m); f.value.uiVal = static_cast<unsigned>(m); break; }
    case NVML_FI_DEV_POWER_AVERAGE: as_uint(Key::PowerDrawAverage, 1000); break;
    case NVML_FI_DEV_POWER_INSTANT: as_uint(Key::PowerDrawInstant, 1000); break;
    case NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: {
      f.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
      f.nvmlReturn = recovery_action(v, u);
      f.value.uiVal = u;
      break;
    }
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX: nvlink_counter(v, f); break;
    case 251: as_ull(Key::ClocksEventReasonsCountersSwThermalSlowdown, 1000); break;
    case 252: as_ull(Key::ClocksEventReasonsCountersHwThermalSlowdown, 1000); break;
    case 253: as_ull(Key::ClocksEventReasonsCountersHwPowerBrakeSlowdown, 1000); break;
    default: f.nvmlReturn = NVML_ERROR_NOT_SUPPORTED; break;
  }
}

template <class Data>
nvmlReturn_t wait(Fn fn, nvmlEventSet_t set, Data* data, unsigned timeout_ms) noexcept {
  try {
    auto& st = DriverState::get();
    if (!st.initialized()) return NVML_ERROR_UNINITIALIZED;
    if (!set || !data || !is_live(set)) return NVML_ERROR_INVALID_ARGUMENT;
    if (nvmlReturn_t r = st.apply_faults(fn, -1, st.now_t()); r != NVML_SUCCESS) return r;
    const Simulation& sim = *st.sim();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      double now = st.now_t();
      double next_at = std::numeric_limits<double>::infinity();
      {
        std::lock_guard lock(set->mutex);
        nvmlEventSet_st::Registration* best = nullptr;
        const ScheduledEvent* best_event = nullptr;
        for (auto& r : set->registrations) {
          const auto& evs = sim.events(r.gpu);
          while (r.next < evs.size() && (evs[r.next].type & r.types) == 0) ++r.next;
          if (r.next >= evs.size()) continue;
          const auto& e = evs[r.next];
          if (e.at_s <= now && (!best_event || e.at_s < best_event->at_s)) {
            best = &r;
            best_event = &e;
          }
          next_at = std::min(next_at, e.at_s);
        }
        if (best) {
          data->device = best->device;
          data->eventType = best_event->type;
          data->eventData = best_event->type == nvmlEventTypeXidCriticalError ? best_event->data : 0;
          if constexpr (sizeof(Data) == sizeof(nvmlEventData_t)) {
            data->gpuInstanceId = kNoInstance;
            data->computeInstanceId = kNoInstance;
          }
          ++best->next;
          return NVML_SUCCESS;
        }
      }
      auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::milliseconds(0)) return NVML_ERROR_TIMEOUT;
      auto nap = std::chrono::milliseconds(20);
      if (std::isfinite(next_at)) {
        double wall_s = (next_at - now) / st.time_scale();
        nap = std::min(nap, std::chrono::milliseconds(static_cast<long long>(std::max(1.0, wall_s * 1000))));
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(nap, left));
    }
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) noexcept {
  return with_device(Fn::nvmlDeviceGetFieldValues, device, [&](const View& v) -> nvmlReturn_t {
    if (!values || count <= 0) return NVML_ERROR_INVALID_ARGUMENT;
    std::uint64_t now = DriverState::get().now_us();
    for (int i = 0; i < count; ++i) field_value(v, values[i], now);
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) noexcept {
  try {
    if (!DriverState::get().initialized()) return NVML_ERROR_UNINITIALIZED;
    if (!set) return NVML_ERROR_INVALID_ARGUMENT;
    auto* s = new nvmlEventSet_st();
    std::lock_guard lock(g_sets_mutex);
    live_sets().insert(s);
    *set = s;
    return NVML_SUCCESS;
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

GW_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) noexcept {
  try {
    if (!DriverState::get().initialized()) return NVML_ERROR_UNINITIALIZED;
    std::lock_guard lock(g_sets_mutex);
    if (!set || live_sets().erase(set) == 0) return NVML_ERROR_INVALID_ARGUMENT;
    delete set;
    return NVML_SUCCESS;
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* types) noexcept {
  return with_device(Fn::nvmlDeviceGetSupportedEventTypes, device, [&](const View& v) -> nvmlReturn_t {
    if (!types) return NVML_ERROR_INVALID_ARGUMENT;
    int ecc = 0;
    bool has_ecc = v.flag(Key::EccModeCurrent, ecc) == NVML_SUCCESS && ecc;
    *types = has_ecc ? kSupportedEvents : (nvmlEventTypePState | nvmlEventTypeXidCriticalError);
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set) noexcept {
  return with_device(Fn::nvmlDeviceRegisterEvents, device, [&](const View& v) -> nvmlReturn_t {
    if (!set || !is_live(set)) return NVML_ERROR_INVALID_ARGUMENT;
    int ecc = 0;
    bool has_ecc = v.flag(Key::EccModeCurrent, ecc) == NVML_SUCCESS && ecc;
    unsigned long long supported = has_ecc ? kSupportedEvents : (nvmlEventTypePState | nvmlEventTypeXidCriticalError);
    if ((types & supported) == 0) return NVML_ERROR_NOT_SUPPORTED;
    const auto& evs = v.sim().events(v.gpu());
    double now = DriverState::get().now_t();
    // Events before registration are not recorded.
    auto first = std::upper_bound(evs.begin(), evs.end(), now, [](double t, const ScheduledEvent& e) { return t < e.at_s; });
    std::lock_guard lock(set->mutex);
    set->registrations.push_back({DriverState::get().handle(v.gpu()), v.gpu(), types & supported,
                                  static_cast<std::size_t>(first - evs.begin())});
    return (types & ~supported) != 0 ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_v1_t* data, unsigned int timeout_ms) noexcept {
  return wait(Fn::nvmlEventSetWait, set, data, timeout_ms);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout_ms) noexcept {
  return wait(Fn::nvmlEventSetWait_v2, set, data, timeout_ms);
}
#endif
