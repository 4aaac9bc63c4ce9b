// record_sample: one GPU sample into the windows (gpu_state.hpp's channels) and trends.
#include <algorithm>

#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

void add_utilization(const GpuState& st, const GpuSample& s, Window::Values& v) {
  const bool held = s.held();
  v[kHeldN] = held ? 1 : 0;
  if (!s.util) return;
  const double u = *s.util;
  const bool idle = u < kIdleUtil;
  v[kUtilN] = 1;
  v[kUtilSum] = u;
  v[kIdleN] = idle ? 1 : 0;
  v[kBusyN] = u >= kBusyUtil ? 1 : 0;
  v[kPinnedN] = u >= kPinnedUtil ? 1 : 0;
  v[kIdleHeldN] = idle && held ? 1 : 0;
  v[kGapStarts] = idle && held && st.have_prev && !st.prev_idle ? 1 : 0;
  if (held) {
    v[kHeldUtilN] = 1;
    v[kHeldUtilSum] = u;
  }
  if (auto r = s.power_ratio()) {
    v[kPowerN] = 1;
    v[kPowerRatioSum] = *r;
  }
  if (s.sm_active) {
    v[kSmN] = 1;
    v[kSmSum] = *s.sm_active;
    v[kSmUtilSum] = u;
  }
  if (s.buffer_idle_share && s.buffer_idle_gaps && held) {
    v[kBufferN] = 1;
    v[kBufferIdleSum] = *s.buffer_idle_share;
    v[kBufferGaps] = *s.buffer_idle_gaps;
  }
  if (s.mem_util) {
    v[kMemUtilN] = 1;
    v[kMemUtilSum] = *s.mem_util;
  }
  if (s.pcie_gen && s.pcie_gen_max && s.pcie_width && s.pcie_width_max && u >= kPcieLoadUtil) {
    v[kPcieLoadN] = 1;
    v[kPcieDegradedN] = *s.pcie_gen < *s.pcie_gen_max || *s.pcie_width < *s.pcie_width_max ? 1 : 0;
  }
}

void add_throttling(const GpuState& st, const GpuSample& s, Window::Values& v) {
  if (s.reasons) {
    const std::uint64_t r = *s.reasons;
    const double loss = s.sm_clock_hz && s.sm_clock_max_hz && *s.sm_clock_max_hz > 0
                            ? std::clamp(1.0 - *s.sm_clock_hz / *s.sm_clock_max_hz, 0.0, 1.0)
                            : 0.0;
    const bool thermal = (r & (kReasonSwThermal | kReasonHwThermal)) != 0;
    const bool power = (r & kReasonSwPowerCap) != 0;
    const bool hw_alone = (r & kReasonHwSlowdown) != 0 && !thermal && (r & kReasonHwPowerBrake) == 0;
    const bool other = (r & (kReasonHwPowerBrake | kReasonSyncBoost)) != 0 || hw_alone;
    v[kReasonN] = 1;
    v[kThermalN] = thermal ? 1 : 0;
    v[kHwThermalN] = (r & kReasonHwThermal) != 0 ? 1 : 0;
    v[kPowerCapN] = power ? 1 : 0;
    v[kOtherN] = other ? 1 : 0;
    v[kThermalClockLoss] = thermal ? loss : 0;
    v[kPowerCapClockLoss] = power ? loss : 0;
    v[kOtherClockLoss] = other ? loss : 0;
  }
  if (!st.have_prev) return;
  const double dt = s.t_s - st.prev_t_s;
  if (dt <= 0 || dt > kMaxSampleGapS) return;
  const Channel dts[] = {kCounterDtPowerCap, kCounterDtThermal, kCounterDtOther};
  const Channel sums[] = {kCounterPowerCap, kCounterThermal, kCounterOther};
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    const auto& now = s.throttled_s[i];
    const auto& before = st.prev_throttled_s[i];
    if (!now || !before || *now < *before) continue;  // a reset (driver reload) is no data
    v[dts[i]] = dt;
    v[sums[i]] = std::min(*now - *before, dt);
  }
}

void add_memory(GpuState& st, const GpuSample& s, Window::Values& v) {
  if (s.mem_used_bytes) st.device_memory.push(s.t_s, *s.mem_used_bytes);
  if (s.processes_read && s.mem_used_bytes && s.mem_total_bytes) {
    if (auto sum = s.process_memory_sum()) {
      const double unattributed = std::max(0.0, *s.mem_used_bytes - *sum);
      const double floor = std::max(kUnattributedMinBytes, kUnattributedMinOfTotal * *s.mem_total_bytes);
      v[kUnattributedCheckN] = 1;
      v[kUnattributedN] = unattributed >= floor ? 1 : 0;
      v[kUnattributedBytesSum] = unattributed;
    }
  }
  for (const auto& p : s.processes) {
    if (!p.used_bytes) continue;
    auto [it, fresh] = st.processes.try_emplace(p.pid);
    if (fresh && p.name) it->second.name = *p.name;
    it->second.last_seen_s = s.t_s;
    // Memory that halved in one step was freed (or the PID restarted): the trend starts over,
    // so a leak that ended does not linger on the fit of its old slope.
    if (it->second.last_bytes > 0 && *p.used_bytes < thresholds::kLeakResetDropRatio * it->second.last_bytes) {
      it->second.memory.clear();
    }
    it->second.last_bytes = *p.used_bytes;
    it->second.memory.push(s.t_s, *p.used_bytes);
  }
}

}  // namespace

void record_sample(GpuState& st) {
  const GpuSample& s = st.sample;
  Window::Values v{};
  v[kSamples] = 1;
  add_utilization(st, s, v);
  add_throttling(st, s, v);
  add_memory(st, s, v);
  track_spin(st);
  st.short_w.push(s.t_s, v);
  st.long_w.push(s.t_s, v);
  st.recent_w.push(s.t_s, v);
  st.have_prev = true;
  st.prev_t_s = s.t_s;
  st.prev_idle = s.util && *s.util < kIdleUtil;
  st.prev_throttled_s = s.throttled_s;
}

}  // namespace gpuwatch::diagnose
