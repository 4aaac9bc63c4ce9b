// GPM (GPU Performance Monitoring, Hopper and later): the support query, sample buffers
// and metrics computed from two samples. The activity comes from sim/engine/gpm_model.
// A sample handle is an opaque pointer: handles are checked against the set of live
// ones, so a freed, foreign or never-filled handle is INVALID_ARGUMENT, never a crash.
// The legacy library (an old driver) exports none of this.
#ifndef GPUWATCH_SIM_LEGACY
#include <mutex>
#include <unordered_set>

#include "sim/driver/driver_state.hpp"
#include "sim/engine/gpm_model.hpp"

// The opaque sample of the ABI (nvmlGpmSample_t).
struct nvmlGpmSample_st {
  bool filled = false;
  unsigned gpu = 0;
  int gpu_instance_id = -1;  // -1: the whole GPU (nvmlGpmSampleGet); else nvmlGpmMigSampleGet's
  double t = 0;              // scenario seconds when taken
};

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

class SampleRegistry {
 public:
  static SampleRegistry& get() {
    static auto* registry = new SampleRegistry();  // never destroyed: clients may free late
    return *registry;
  }
  nvmlGpmSample_t add() {
    auto* s = new nvmlGpmSample_st();
    std::lock_guard lock(mutex_);
    live_.insert(s);
    return s;
  }
  bool remove(nvmlGpmSample_t s) {
    std::lock_guard lock(mutex_);
    if (live_.erase(s) == 0) return false;
    delete s;
    return true;
  }
  // Runs FN(sample) under the lock when S is live; false otherwise.
  template <class Fn>
  bool with(nvmlGpmSample_t s, Fn&& fn) {
    std::lock_guard lock(mutex_);
    if (!s || live_.count(s) == 0) return false;
    fn(*s);
    return true;
  }

 private:
  std::mutex mutex_;
  std::unordered_set<nvmlGpmSample_st*> live_;
};

struct MetricName {
  unsigned id;
  const char* short_name;
  const char* long_name;
  const char* unit;
};

// The metrics the model provides.
constexpr MetricName kMetrics[] = {
    {NVML_GPM_METRIC_GRAPHICS_UTIL, "gr_util", "graphics engine utilization", "%"},
    {NVML_GPM_METRIC_SM_UTIL, "sm_util", "SM utilization", "%"},
    {NVML_GPM_METRIC_SM_OCCUPANCY, "sm_occupancy", "SM occupancy", "%"},
    {NVML_GPM_METRIC_INTEGER_UTIL, "integer_util", "integer pipe utilization", "%"},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, "any_tensor_util", "any tensor pipe utilization", "%"},
    {NVML_GPM_METRIC_DFMA_TENSOR_UTIL, "dfma_tensor_util", "DFMA tensor pipe utilization", "%"},
    {NVML_GPM_METRIC_HMMA_TENSOR_UTIL, "hmma_tensor_util", "HMMA tensor pipe utilization", "%"},
    {NVML_GPM_METRIC_IMMA_TENSOR_UTIL, "imma_tensor_util", "IMMA tensor pipe utilization", "%"},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, "dram_bw_util", "DRAM bandwidth utilization", "%"},
    {NVML_GPM_METRIC_FP64_UTIL, "fp64_util", "FP64 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP32_UTIL, "fp32_util", "FP32 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP16_UTIL, "fp16_util", "FP16 pipe utilization", "%"},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, "pcie_tx", "PCIe transmit bandwidth", "MiB/sec"},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, "pcie_rx", "PCIe receive bandwidth", "MiB/sec"},
};

double metric_value(const GpmActivity& a, unsigned id) {
  switch (id) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL: return a.graphics;
    case NVML_GPM_METRIC_SM_UTIL: return a.sm;
    case NVML_GPM_METRIC_SM_OCCUPANCY: return a.sm_occupancy;
    case NVML_GPM_METRIC_INTEGER_UTIL: return a.integer;
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL: return a.tensor_any;
    case NVML_GPM_METRIC_DFMA_TENSOR_UTIL: return a.tensor_dfma;
    case NVML_GPM_METRIC_HMMA_TENSOR_UTIL: return a.tensor_hmma;
    case NVML_GPM_METRIC_IMMA_TENSOR_UTIL: return a.tensor_imma;
    case NVML_GPM_METRIC_DRAM_BW_UTIL: return a.dram;
    case NVML_GPM_METRIC_FP64_UTIL: return a.fp64;
    case NVML_GPM_METRIC_FP32_UTIL: return a.fp32;
    case NVML_GPM_METRIC_FP16_UTIL: return a.fp16;
    case NVML_GPM_METRIC_PCIE_TX_PER_SEC: return a.pcie_tx_mib_s;
    default: return a.pcie_rx_mib_s;
  }
}

// Ids nvml.h 11.8 defines (1..97 with gaps); the model covers kMetrics of them.
bool known_metric_id(unsigned id) {
  return (id >= 1 && id <= 7) || (id >= 9 && id <= 13) || id == 20 || id == 21 || (id >= 30 && id <= 37) ||
         (id >= 40 && id <= 47) || id == 50 || (id >= 60 && id < NVML_GPM_METRIC_MAX);
}

void fill_metric(nvmlGpmMetric_t& m, const GpmActivity& a) {
  m.value = 0;
  m.metricInfo = {nullptr, nullptr, nullptr};
  if (!known_metric_id(m.metricId)) {
    m.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
    return;
  }
  for (const auto& name : kMetrics) {
    if (name.id != m.metricId) continue;
    m.nvmlReturn = NVML_SUCCESS;
    m.value = metric_value(a, m.metricId);
    m.metricInfo = {const_cast<char*>(name.short_name), const_cast<char*>(name.long_name), const_cast<char*>(name.unit)};
    return;
  }
  m.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;  // NVDEC/NVJPG/NVOFA/NVLink: not modelled
}

bool mig_enabled(const View& v) {
  int mode = 0;
  return v.flag(Key::MigModeCurrent, mode) == NVML_SUCCESS && mode != 0;
}

// Records the moment of the call into SAMPLE for GPU (and GPU instance).
nvmlReturn_t take_sample(nvmlGpmSample_t sample, unsigned gpu, int gpu_instance_id) {
  const double t = DriverState::get().now_t();
  bool ok = SampleRegistry::get().with(sample, [&](nvmlGpmSample_st& s) {
    s.filled = true;
    s.gpu = gpu;
    s.gpu_instance_id = gpu_instance_id;
    s.t = t;
  });
  return ok ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* support) noexcept {
  return with_device(Fn::nvmlGpmQueryDeviceSupport, device, [&](const View& v) -> nvmlReturn_t {
    if (!support) return NVML_ERROR_INVALID_ARGUMENT;
    if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    support->isSupportedDevice = gpm_supported(v.sim(), v.gpu()) ? 1 : 0;  // pre-Hopper: 0
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) noexcept {
  return with_system(Fn::nvmlGpmSampleAlloc, [&](const Simulation&) -> nvmlReturn_t {
    if (!sample) return NVML_ERROR_INVALID_ARGUMENT;
    *sample = SampleRegistry::get().add();
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) noexcept {
  try {  // works after nvmlShutdown too, so that clients can clean up
    return SampleRegistry::get().remove(sample) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

GW_EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample) noexcept {
  return with_device(Fn::nvmlGpmSampleGet, device, [&](const View& v) -> nvmlReturn_t {
    if (!sample) return NVML_ERROR_INVALID_ARGUMENT;
    if (!gpm_supported(v.sim(), v.gpu())) return NVML_ERROR_NOT_SUPPORTED;
    // In MIG mode the activity belongs to the GPU instances: nvmlGpmMigSampleGet.
    if (v.mig() >= 0 || mig_enabled(v)) return NVML_ERROR_NOT_SUPPORTED;
    return take_sample(sample, v.gpu(), -1);
  });
}

GW_EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpu_instance_id, nvmlGpmSample_t sample) noexcept {
  return with_device(Fn::nvmlGpmMigSampleGet, device, [&](const View& v) -> nvmlReturn_t {
    if (!sample || v.mig() >= 0) return NVML_ERROR_INVALID_ARGUMENT;  // the parent GPU's handle
    if (!gpm_supported(v.sim(), v.gpu()) || !mig_enabled(v)) return NVML_ERROR_NOT_SUPPORTED;
    bool exists = false;
    for (const auto& inst : v.spec().mig) exists = exists || inst.gpu_instance_id == gpu_instance_id;
    if (!exists) return NVML_ERROR_NOT_FOUND;
    return take_sample(sample, v.gpu(), static_cast<int>(gpu_instance_id));
  });
}

GW_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* request) noexcept {
  return with_system(Fn::nvmlGpmMetricsGet, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!request) return NVML_ERROR_INVALID_ARGUMENT;
    if (request->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (request->numMetrics > NVML_GPM_METRIC_MAX) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlGpmSample_st a, b;
    auto& registry = SampleRegistry::get();
    if (!registry.with(request->sample1, [&](const nvmlGpmSample_st& s) { a = s; }) ||
        !registry.with(request->sample2, [&](const nvmlGpmSample_st& s) { b = s; }))
      return NVML_ERROR_INVALID_ARGUMENT;
    // Both filled, from the same GPU (or GPU instance) of this scenario.
    if (!a.filled || !b.filled || a.gpu != b.gpu || a.gpu_instance_id != b.gpu_instance_id || a.gpu >= sim.gpu_count())
      return NVML_ERROR_INVALID_ARGUMENT;
    const GpmActivity activity = gpm_average(sim, a.gpu, a.gpu_instance_id, a.t, b.t);
    for (unsigned i = 0; i < request->numMetrics; ++i) fill_metric(request->metrics[i], activity);
    return NVML_SUCCESS;
  });
}
#endif
