#include "jobs/device_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::jobs {

using core::FieldId;

const std::vector<ThrottleReason>& throttle_reasons() {
  static const std::vector<ThrottleReason> reasons = {
      {"sw_power_cap", FieldId::ClocksEventReasonsSwPowerCap, FieldId::ClocksEventReasonsCountersSwPowerCap},
      {"hw_slowdown", FieldId::ClocksEventReasonsHwSlowdown, std::nullopt},
      {"hw_thermal_slowdown", FieldId::ClocksEventReasonsHwThermalSlowdown, FieldId::ClocksEventReasonsCountersHwThermalSlowdown},
      {"sw_thermal_slowdown", FieldId::ClocksEventReasonsSwThermalSlowdown, FieldId::ClocksEventReasonsCountersSwThermalSlowdown},
      {"hw_power_brake_slowdown", FieldId::ClocksEventReasonsHwPowerBrakeSlowdown,
       FieldId::ClocksEventReasonsCountersHwPowerBrakeSlowdown},
      {"sync_boost", FieldId::ClocksEventReasonsSyncBoost, FieldId::ClocksEventReasonsCountersSyncBoost},
  };
  return reasons;
}

const std::vector<core::FieldId>& summary_fields() {
  static const std::vector<core::FieldId> fields = [] {
    std::vector<core::FieldId> f = {FieldId::Uuid, FieldId::Name, FieldId::UtilizationGpu, FieldId::MemoryUsed,
                                    FieldId::MemoryTotal, FieldId::PowerDraw, FieldId::EnergyTotal,
                                    FieldId::GpmSmActive, FieldId::GpmTensorActive};
    for (const auto& r : throttle_reasons()) {
      f.push_back(r.active);
      if (r.counter) f.push_back(*r.counter);
    }
    return f;
  }();
  return fields;
}

namespace {

double seconds_between(TimePoint a, TimePoint b) { return std::chrono::duration<double>(b - a).count(); }

void observe_energy(DeviceStats& s, const core::DeviceSnapshot& d, TimePoint at) {
  if (auto e = d.get(FieldId::EnergyTotal).as_double()) {
    if (s.energy_last_j && *e < *s.energy_last_j) s.energy_counter_reset = true;
    if (!s.energy_first_j) s.energy_first_j = e;
    s.energy_last_j = e;
  }
  auto p = d.get(FieldId::PowerDraw).as_double();
  if (p && s.last_power_w && s.last_power_at) {
    double dt = seconds_between(*s.last_power_at, at);
    if (dt > 0 && dt <= kMaxIntegrationGapS) {
      s.power_integral_j += 0.5 * (*p + *s.last_power_w) * dt;
      s.power_covered_s += dt;
    }
  }
  if (p) {
    s.last_power_w = p;
    s.last_power_at = at;
  }
}

void observe_throttle(DeviceStats& s, const core::DeviceSnapshot& d, TimePoint at) {
  double dt = s.last_throttle_at ? seconds_between(*s.last_throttle_at, at) : 0;
  if (dt < 0 || dt > kMaxIntegrationGapS) dt = 0;
  for (const auto& r : throttle_reasons()) {
    auto active = d.get(r.active).as_double();
    std::optional<double> counter = r.counter ? d.get(*r.counter).as_double() : std::nullopt;
    if (!active && !counter) continue;
    ThrottleStats& t = s.throttle[r.name];
    t.seen = true;
    if (counter) {
      if (!t.counter_first_s) t.counter_first_s = counter;
      t.counter_last_s = counter;
    }
    if (active && *active != 0) t.sampled_s += dt;  // active now: the interval up to now counts
  }
  s.last_throttle_at = at;
}

void observe_mig(DeviceStats& s, const core::DeviceSnapshot& d, const std::set<std::uint32_t>& instances) {
  for (std::uint32_t gi : instances) {
    MigUse& use = s.mig[gi];
    use.gpu_instance_id = gi;
    for (const auto& m : d.mig_devices) {
      if (m.gpu_instance_id != gi) continue;
      use.uuid = m.uuid;
      use.profile = m.profile;
      if (m.memory_total_bytes) use.memory_total_bytes = m.memory_total_bytes;
      if (m.memory_used_bytes && (!use.memory_peak_bytes || *m.memory_used_bytes > *use.memory_peak_bytes))
        use.memory_peak_bytes = m.memory_used_bytes;
    }
  }
}

}  // namespace

void observe(DeviceStats& s, const core::DeviceSnapshot& d, TimePoint at, const std::set<std::uint32_t>& job_pids,
             const std::set<std::uint32_t>& job_instances) {
  s.index = d.index;
  if (d.state != core::DeviceState::Ok) return;
  if (auto u = d.get(FieldId::Uuid).as_string()) s.uuid = *u;
  if (auto n = d.get(FieldId::Name).as_string()) s.name = *n;
  ++s.samples;
  if (!s.first) s.first = at;
  s.last = at;
  if (!job_pids.empty()) s.used = true;
  s.pids.insert(job_pids.begin(), job_pids.end());
  observe_mig(s, d, job_instances);
  if (auto u = d.get(FieldId::UtilizationGpu).as_double()) {
    auto percent = static_cast<long>(std::lround(std::clamp(*u, 0.0, 1.0) * 100));
    ++s.util_histogram[static_cast<std::size_t>(percent)];
    ++s.util_samples;
  }
  if (auto v = d.get(FieldId::GpmSmActive).as_double()) {
    s.sm_active_sum += *v;
    ++s.sm_active_samples;
  }
  if (auto v = d.get(FieldId::GpmTensorActive).as_double()) {
    s.tensor_active_sum += *v;
    ++s.tensor_active_samples;
  }
  if (auto used = d.get(FieldId::MemoryUsed).as_uint(); used && (!s.memory_peak_bytes || *used > *s.memory_peak_bytes))
    s.memory_peak_bytes = used;
  if (auto total = d.get(FieldId::MemoryTotal).as_uint()) s.memory_total_bytes = total;
  observe_energy(s, d, at);
  add_point(s.energy_timeline, d, at);
  observe_throttle(s, d, at);
}

std::optional<double> utilization_percentile(const DeviceStats& s, double q) {
  if (s.util_samples == 0) return std::nullopt;
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(s.util_samples)));
  if (rank == 0) rank = 1;
  std::uint64_t seen = 0;
  for (std::size_t p = 0; p < s.util_histogram.size(); ++p) {
    seen += s.util_histogram[p];
    if (seen >= rank) return static_cast<double>(p) / 100.0;
  }
  return 1.0;
}

std::optional<double> utilization_mean(const DeviceStats& s) {
  if (s.util_samples == 0) return std::nullopt;
  double sum = 0;
  for (std::size_t p = 0; p < s.util_histogram.size(); ++p) sum += static_cast<double>(p * s.util_histogram[p]);
  return sum / static_cast<double>(s.util_samples) / 100.0;
}

std::optional<Energy> energy_of(const DeviceStats& s) {
  if (s.energy_first_j && s.energy_last_j && !s.energy_counter_reset && s.samples >= 2)
    return Energy{*s.energy_last_j - *s.energy_first_j, "counter"};
  if (s.power_covered_s > 0) return Energy{s.power_integral_j, "estimated"};
  return std::nullopt;
}

std::map<std::string, double> throttle_seconds(const DeviceStats& s) {
  std::map<std::string, double> out;
  for (const auto& [name, t] : s.throttle) {
    double seconds = t.counter_first_s && t.counter_last_s && *t.counter_last_s >= *t.counter_first_s
                         ? *t.counter_last_s - *t.counter_first_s
                         : t.sampled_s;
    if (seconds > 0) out[name] = seconds;
  }
  return out;
}

}  // namespace gpuwatch::jobs
