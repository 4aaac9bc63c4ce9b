// nvmlDeviceGetSamples: the driver's sample buffer of GPU utilization, memory utilization and
// power, one sample per sample period of the GPU's model (Simulation::period_sample), stamped
// with the CPU time (µs since 1970) at the end of its period. Semantics as NVML documents them:
// only samples newer than lastSeenTimeStamp; samples == NULL asks for the count (SUCCESS, which
// pynvml requires); no sample newer: NOT_FOUND. The buffer holds the latest kSampleBufferSize
// samples (NVML does not document its size; 120 is 20 s at 1/6 s). A buffer smaller than the
// count gets the oldest samples that fit, in time order, so a reader that passes the newest
// timestamp it got reads the rest next time. MIG devices: NOT_SUPPORTED, as real drivers.
// Encoder, decoder and clock samples are not simulated (NOT_SUPPORTED).
#include <algorithm>
#include <cmath>

#include "sim/driver/driver_state.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

constexpr std::int64_t kSampleBufferSize = 120;

// The value of sample K of TYPE (percent or mW): SUCCESS, or why the GPU has none.
nvmlReturn_t sample_value(const View& v, int type, std::int64_t k, unsigned& out) {
  const Key key = type == NVML_TOTAL_POWER_SAMPLES        ? Key::PowerDraw
                  : type == NVML_GPU_UTILIZATION_SAMPLES ? Key::UtilizationGpu
                                                          : Key::UtilizationMemory;
  const double scale = type == NVML_TOTAL_POWER_SAMPLES ? 1000.0 : 1.0;
  double now = 0;
  if (nvmlReturn_t r = v.number(key, now); r != NVML_SUCCESS) return r;  // the GPU has no such reading
  double x = now;  // a GPU without phases: every sample is its static value
  if (!v.spec().phases.empty()) {
    const auto s = v.sim().period_sample(v.gpu(), k);
    x = type == NVML_TOTAL_POWER_SAMPLES ? s.power_w : type == NVML_GPU_UTILIZATION_SAMPLES ? s.util : s.mem_util;
  }
  const double y = std::round(x * scale);
  out = y <= 0 ? 0u : y >= 4294967295.0 ? 4294967295u : static_cast<unsigned>(y);
  return NVML_SUCCESS;
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, int type, unsigned long long last_seen,
                                            int* value_type, unsigned int* count, nvmlSample_t* samples) noexcept {
  return with_device(Fn::nvmlDeviceGetSamples, device, [&](const View& v) -> nvmlReturn_t {
    if (!value_type || !count || type < 0 || type > NVML_MEMORY_CLK_SAMPLES) return NVML_ERROR_INVALID_ARGUMENT;
    if (type > NVML_MEMORY_UTILIZATION_SAMPLES || v.mig() >= 0) return NVML_ERROR_NOT_SUPPORTED;
    int mig_mode = 0;
    if (type != NVML_TOTAL_POWER_SAMPLES && v.flag(Key::MigModeCurrent, mig_mode) == NVML_SUCCESS && mig_mode)
      return NVML_ERROR_NOT_SUPPORTED;  // utilization is not supported on a GPU in MIG mode
    const auto& st = DriverState::get();
    const Simulation& sim = v.sim();
    const double period = sim.sample_period_s(v.gpu());
    std::int64_t newest = sim.period_index(v.gpu(), v.sample().t);
    Simulation::PeriodSample unused;
    newest_period(v, newest, unused);  // the unquantized clock where periods are modelled
    std::int64_t first = std::max<std::int64_t>(newest - kSampleBufferSize + 1, 1);
    if (last_seen > 0) {  // the first sample stamped after LAST_SEEN (computed, then checked against the stamps)
      const double t_seen = st.t_of_us(last_seen);
      std::int64_t after = static_cast<std::int64_t>(std::floor(t_seen / period)) - 1;
      while (after >= first && st.us_of_t(static_cast<double>(after) * period) > last_seen) --after;
      while (after + 1 <= newest && st.us_of_t(static_cast<double>(after + 1) * period) <= last_seen) ++after;
      first = std::max(first, after + 1);
    }
    const auto available = static_cast<unsigned>(std::max<std::int64_t>(0, newest - first + 1));
    *value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (available == 0) return NVML_ERROR_NOT_FOUND;
    if (!samples) {
      unsigned probe = 0;  // a GPU without this reading answers its error, not a count
      if (nvmlReturn_t r = sample_value(v, type, newest, probe); r != NVML_SUCCESS) return r;
      *count = available;
      return NVML_SUCCESS;
    }
    const unsigned n = std::min(*count, available);
    for (unsigned i = 0; i < n; ++i) {
      const std::int64_t k = first + i;
      samples[i].timeStamp = st.us_of_t(static_cast<double>(k) * period);
      samples[i].sampleValue.ullVal = 0;
      if (nvmlReturn_t r = sample_value(v, type, k, samples[i].sampleValue.uiVal); r != NVML_SUCCESS) return r;
    }
    *count = n;
    return NVML_SUCCESS;
  });
}
