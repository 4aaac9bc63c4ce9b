#include "alert_runtime/sample_tick.hpp"

#include "alerts/node_state.hpp"

namespace gpuwatch::alert_runtime {

alerts::TickInput tick_from_snapshot(const core::Snapshot& snapshot, const std::vector<diagnose::Finding>& findings,
                                     const std::string& host) {
  alerts::TickInput tick;
  tick.now = snapshot.timestamp;
  tick.host = host;
  if (!alerts::driver_gone(snapshot)) tick.gpu_count = snapshot.device_count;
  tick.findings = findings;
  tick.sampler_age_s = 0.0;
  for (const auto& device : snapshot.devices) {
    alerts::GpuInput gpu;
    gpu.index = device.index;
    gpu.sample = &device;
    gpu.age_s = 0.0;
    for (const auto& process : device.processes) {
      if (!process.name.empty()) gpu.process_commands.push_back(process.name);
    }
    tick.gpus.push_back(std::move(gpu));
  }
  return tick;
}

}  // namespace gpuwatch::alert_runtime
