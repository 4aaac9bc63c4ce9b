#include "live/alert_input.hpp"

#include "alerts/node_state.hpp"

namespace gpuwatch::live {

alerts::TickInput make_alert_tick(const DiagnosisInput& input, const std::vector<diagnose::Finding>& findings,
                                  std::chrono::system_clock::time_point now, const std::string& host) {
  alerts::TickInput tick;
  tick.now = now;
  tick.host = host;
  if (!alerts::driver_gone(input.snapshot)) tick.gpu_count = input.snapshot.device_count;
  tick.findings = findings;
  for (const auto& fresh : input.freshness) {
    alerts::GpuInput gpu;
    gpu.index = fresh.index;
    for (const auto& device : input.snapshot.devices) {
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
    for (const auto& xid : input.xids) {
      if (xid.gpu != fresh.index) continue;
      auto at = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(xid.last_seen_unix_s)));
      gpu.xids.push_back(alerts::XidSeen{xid.xid, at});
    }
    tick.gpus.push_back(std::move(gpu));
  }
  return tick;
}

}  // namespace gpuwatch::live
