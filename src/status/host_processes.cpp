#include "status/host_processes.hpp"

namespace gpuwatch::status {

std::map<unsigned, host::ProcessInfo> read_host_processes(const core::Snapshot& snapshot, host::CpuTracker& tracker,
                                                          const HostReader& reader) {
  const auto now = reader.now ? reader.now() : host::CpuTracker::Clock::now();
  std::map<unsigned, host::ProcessInfo> processes;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (!processes.count(process.pid)) processes[process.pid] = host::read_process_info(process.pid, reader.proc_root);
    }
  }
  for (auto& [pid, info] : processes) {
    const bool first_seen = !tracker.knows(pid);
    tracker.update(pid, info, now);
    // A first reading has nothing to compare with: the average since the process started, as ps.
    if (first_seen && info.cpu_seconds && info.run_seconds && *info.run_seconds > 0) {
      info.cpu_ratio = *info.cpu_seconds / *info.run_seconds;
      info.cpu_over_lifetime = true;
    }
  }
  tracker.retain(processes);
  return processes;
}

}  // namespace gpuwatch::status
