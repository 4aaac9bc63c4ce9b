#include "alert_runtime/tick_input.hpp"

#include "alerts/node_state.hpp"

namespace gpuwatch::alert_runtime {

alerts::TickInput make_tick_input(const core::Snapshot& snapshot, const std::vector<GpuFreshness>& freshness,
                                  const std::vector<GpuXid>& xids, const std::vector<diagnose::Finding>& findings,
                                  std::chrono::system_clock::time_point now, const std::string& host) {
  alerts::TickInput tick;
  tick.now = now;
  tick.host = host;
  if (!alerts::driver_gone(snapshot)) tick.gpu_count = snapshot.device_count;
  tick.findings = findings;
  for (const auto& fresh : freshness) {
    alerts::GpuInput gpu;
    gpu.index = fresh.index;
    for (const auto& device : snapshot.devices) {
      if (device.index == fresh.index) gpu.sample = &device;
    }
    if (fresh.has_sample) {
      gpu.age_s = fresh.age_s;
      if (!tick.sampler_age_s || fresh.age_s < *tick.sampler_age_s) tick.sampler_age_s = fresh.age_s;
    }
    gpu.stale = fresh.stale;
    if (gpu.sample != nullptr) {
      for (const auto& process : gpu.sample->processes) {
        if (!process.name.empty()) gpu.process_commands.push_back(process.name);
      }
    }
    for (const auto& xid : xids) {
      if (xid.gpu != fresh.index) continue;
      auto at = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(xid.last_seen_unix_s)));
      gpu.xids.push_back(alerts::XidSeen{xid.xid, at});
    }
    tick.gpus.push_back(std::move(gpu));
  }
  return tick;
}

alerts::TickInput make_tick_input(const core::Snapshot& snapshot, const std::vector<diagnose::Finding>& findings,
                                  const std::string& host) {
  std::vector<GpuFreshness> fresh;
  fresh.reserve(snapshot.devices.size());
  for (const auto& device : snapshot.devices) fresh.push_back({device.index, true, 0.0, false});
  auto tick = make_tick_input(snapshot, fresh, {}, findings, snapshot.timestamp, host);
  tick.sampler_age_s = 0.0;  // also with no device: the tick was just sampled
  return tick;
}

}  // namespace gpuwatch::alert_runtime
