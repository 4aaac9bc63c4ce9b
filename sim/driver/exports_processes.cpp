// Running processes (v1 16-byte, _v2/_v3 24-byte records), process utilization.
#include "sim/driver/driver_state.hpp"
#include <algorithm>
#include <vector>

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

void fill(nvmlProcessInfo_v1_t& out, const ProcessSample& p, const GpuSpec&) {
  out.pid = p.pid;
  out.usedGpuMemory = static_cast<unsigned long long>(p.memory_mib * kMiB);
}

[[maybe_unused]] void fill(nvmlProcessInfo_v2_t& out, const ProcessSample& p, const GpuSpec& spec) {
  out.pid = p.pid;
  out.usedGpuMemory = static_cast<unsigned long long>(p.memory_mib * kMiB);
  if (p.mig >= 0) {
    out.gpuInstanceId = spec.mig[static_cast<std::size_t>(p.mig)].gpu_instance_id;
    out.computeInstanceId = spec.mig[static_cast<std::size_t>(p.mig)].compute_instance_id;
  } else {
    out.gpuInstanceId = kNoInstance;
    out.computeInstanceId = kNoInstance;
  }
}

enum class Kind { Compute, Graphics, Mps };

template <class Info>
nvmlReturn_t processes(Fn fn, nvmlDevice_t device, Kind kind, unsigned* count, Info* infos) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    const auto& all = v.sample().processes;
    auto matches = [&](const ProcessSample& p) {
      if (kind == Kind::Mps) return false;  // no MPS server in the simulator
      if (v.mig() >= 0 && p.mig != v.mig()) return false;
      return kind == Kind::Compute ? p.compute : p.graphics;
    };
    unsigned n = 0;
    for (const auto& p : all) n += matches(p) ? 1 : 0;
    if (*count < n) {
      *count = n;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n > 0 && !infos) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned i = 0;
    for (const auto& p : all)
      if (matches(p)) fill(infos[i++], p, v.spec());
    *count = n;
    return NVML_SUCCESS;
  });
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v1_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetComputeRunningProcesses, d, Kind::Compute, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v1_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetGraphicsRunningProcesses, d, Kind::Graphics, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v1_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetMPSComputeRunningProcesses, d, Kind::Mps, c, i);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v2_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetComputeRunningProcesses_v2, d, Kind::Compute, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v2_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetGraphicsRunningProcesses_v2, d, Kind::Graphics, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_v2_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetMPSComputeRunningProcesses_v2, d, Kind::Mps, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetComputeRunningProcesses_v3, d, Kind::Compute, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetGraphicsRunningProcesses_v3, d, Kind::Graphics, c, i);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* c, nvmlProcessInfo_t* i) noexcept {
  return processes(Fn::nvmlDeviceGetMPSComputeRunningProcesses_v3, d, Kind::Mps, c, i);
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t* utilization,
                                                       unsigned int* count, unsigned long long last_seen) noexcept {
  return with_device(Fn::nvmlDeviceGetProcessUtilization, device, [&](const View& v) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    int mig_mode = 0;
    if (v.mig() >= 0 || (v.flag(Key::MigModeCurrent, mig_mode) == NVML_SUCCESS && mig_mode))
      return NVML_ERROR_NOT_SUPPORTED;
    // The samples are the utilization sample buffer's newest period (nvmlDeviceGetSamples): the
    // same busy shares, stamped with the end of that period.
    const auto& sim = v.sim();
    std::int64_t k = sim.period_index(v.gpu(), v.sample().t);
    Simulation::PeriodSample period;
    const bool periods = newest_period(v, k, period);
    const std::uint64_t now = DriverState::get().us_of_t(static_cast<double>(k) * sim.sample_period_s(v.gpu()));
    // Each compute process gets the period's busy shares (the simulator runs one job per GPU).
    thread_local std::vector<nvmlProcessUtilizationSample_t> rows;
    rows.clear();
    for (const auto& p : v.sample().processes) {
      unsigned sm = p.sm_util, mem = p.mem_util;
      if (periods && p.compute && p.mig < 0) {
        sm = static_cast<unsigned>(period.util);
        mem = static_cast<unsigned>(period.mem_util);
      }
      if (sm > 0 || mem > 0) rows.push_back(nvmlProcessUtilizationSample_t{p.pid, now, sm, mem, 0, 0});
    }
    const auto n = static_cast<unsigned>(rows.size());
    if (!utilization) {  // the size query: nvtop and pynvml continue only on INSUFFICIENT_SIZE
      *count = n;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n == 0 || now <= last_seen) return NVML_ERROR_NOT_FOUND;
    if (*count < n) {
      *count = n;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    std::copy(rows.begin(), rows.end(), utilization);
    *count = n;
    return NVML_SUCCESS;
  });
}
