// Memory, utilization, encoder/decoder.
#include "sim/driver/driver_state.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

struct MemoryBytes {
  unsigned long long total = 0, reserved = 0, used = 0, free = 0;
};

nvmlReturn_t memory_of(const View& v, MemoryBytes& m) {
  if (v.mig() >= 0) {
    const auto& inst = v.spec().mig[static_cast<std::size_t>(v.mig())];
    double used = v.sample().mig_used_mib[static_cast<std::size_t>(v.mig())];
    m.total = static_cast<unsigned long long>(inst.memory_mib * kMiB);
    m.used = static_cast<unsigned long long>(used * kMiB);
    m.free = m.total - m.used;
    return NVML_SUCCESS;
  }
  double total = 0, reserved = 0, used = 0, free = 0;
  if (nvmlReturn_t r = v.number(Key::MemoryTotal, total); r != NVML_SUCCESS) return r;
  if (total <= 0) return NVML_ERROR_NOT_SUPPORTED;  // never report a total of 0 (nvtop divides by it)
  if (v.number(Key::MemoryReserved, reserved) != NVML_SUCCESS) reserved = 0;
  if (nvmlReturn_t r = v.number(Key::MemoryUsed, used); r != NVML_SUCCESS) return r;
  if (v.number(Key::MemoryFree, free) != NVML_SUCCESS) free = std::max(0.0, total - reserved - used);
  m.total = static_cast<unsigned long long>(total * kMiB);
  m.reserved = static_cast<unsigned long long>(reserved * kMiB);
  m.used = static_cast<unsigned long long>(used * kMiB);
  m.free = static_cast<unsigned long long>(free * kMiB);
  if (m.free > m.total) m.free = m.total;
  return NVML_SUCCESS;
}

nvmlReturn_t util_pair(Fn fn, nvmlDevice_t device, Key key, unsigned* util, unsigned* period) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!util || !period) return NVML_ERROR_INVALID_ARGUMENT;
    if (nvmlReturn_t r = v.uint(key, 1, *util); r != NVML_SUCCESS) return r;
    *period = 167000;  // µs: the 1/6 s sampling period of data-center boards
    return NVML_SUCCESS;
  });
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) noexcept {
  return with_device(Fn::nvmlDeviceGetMemoryInfo, device, [&](const View& v) -> nvmlReturn_t {
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    MemoryBytes m;
    if (nvmlReturn_t r = memory_of(v, m); r != NVML_SUCCESS) return r;
    memory->total = m.total;
    memory->free = m.free;
    memory->used = m.total - m.free;  // v1: used includes the reserved memory (R510+)
    return NVML_SUCCESS;
  });
}

#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) noexcept {
  return with_device(Fn::nvmlDeviceGetMemoryInfo_v2, device, [&](const View& v) -> nvmlReturn_t {
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2) return NVML_ERROR_FUNCTION_NOT_FOUND;  // as real drivers do for version 2
    MemoryBytes m;
    if (nvmlReturn_t r = memory_of(v, m); r != NVML_SUCCESS) return r;
    memory->total = m.total;
    memory->reserved = m.reserved;
    memory->free = m.free;
    memory->used = m.used;
    return NVML_SUCCESS;
  });
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t* bar1) noexcept {
  return with_device(Fn::nvmlDeviceGetBAR1MemoryInfo, device, [&](const View& v) -> nvmlReturn_t {
    if (!bar1) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long total = 0, used = 0;
    if (nvmlReturn_t r = v.ull(Key::Bar1Total, kMiB, total); r != NVML_SUCCESS) return r;
    if (v.ull(Key::Bar1Used, kMiB, used) != NVML_SUCCESS) used = 0;
    bar1->bar1Total = total;
    bar1->bar1Used = std::min(used, total);
    bar1->bar1Free = total - bar1->bar1Used;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) noexcept {
  return with_device(Fn::nvmlDeviceGetUtilizationRates, device, [&](const View& v) -> nvmlReturn_t {
    if (!utilization) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlUtilization_t u{};
    if (nvmlReturn_t r = v.uint(Key::UtilizationGpu, 1, u.gpu); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::UtilizationMemory, 1, u.memory); r != NVML_SUCCESS) return r;
    std::int64_t k = 0;
    Simulation::PeriodSample period;
    if (newest_period(v, k, period)) {  // the busy shares of the newest whole sample period
      u.gpu = static_cast<unsigned>(period.util);
      u.memory = static_cast<unsigned>(period.mem_util);
    }
    *utilization = u;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int* util, unsigned int* period) noexcept {
  return util_pair(Fn::nvmlDeviceGetEncoderUtilization, device, Key::UtilizationEncoder, util, period);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int* util, unsigned int* period) noexcept {
  return util_pair(Fn::nvmlDeviceGetDecoderUtilization, device, Key::UtilizationDecoder, util, period);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int* util, unsigned int* period) noexcept {
  return util_pair(Fn::nvmlDeviceGetJpgUtilization, device, Key::UtilizationJpeg, util, period);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int* util, unsigned int* period) noexcept {
  return util_pair(Fn::nvmlDeviceGetOfaUtilization, device, Key::UtilizationOfa, util, period);
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int* sessions, unsigned int* fps,
                                                 unsigned int* latency) noexcept {
  return with_device(Fn::nvmlDeviceGetEncoderStats, device, [&](const View& v) -> nvmlReturn_t {
    if (!sessions || !fps || !latency) return NVML_ERROR_INVALID_ARGUMENT;
    if (nvmlReturn_t r = v.uint(Key::EncoderStatsSessionCount, 1, *sessions); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::EncoderStatsAverageFps, 1, *fps); r != NVML_SUCCESS) return r;
    return v.uint(Key::EncoderStatsAverageLatency, 1, *latency);
  });
}
