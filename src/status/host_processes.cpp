#include "status/host_processes.hpp"

#include <thread>

namespace gpuwatch::status {

std::map<unsigned, host::ProcessInfo> read_host_processes(const core::Snapshot& snapshot, host::CpuTracker& tracker,
                                                          const HostReader& reader) {
  auto now = [&] { return reader.now ? reader.now() : host::CpuTracker::Clock::now(); };
  std::map<unsigned, host::ProcessInfo> processes;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (!processes.count(process.pid)) processes[process.pid] = host::read_process_info(process.pid, reader.proc_root);
    }
  }
  bool first_seen = false;
  for (const auto& [pid, info] : processes) first_seen = first_seen || (info.cpu_seconds && !tracker.knows(pid));
  if (first_seen) {  // a first reading now, the one that counts after a short window
    for (auto& [pid, info] : processes) {
      if (!tracker.knows(pid)) tracker.update(pid, info, now());
    }
    if (reader.sleep) {
      reader.sleep(kFirstCpuWindow);
    } else {
      std::this_thread::sleep_for(kFirstCpuWindow);
    }
    for (auto& [pid, info] : processes) {
      host::ProcessInfo again = host::read_process_info(pid, reader.proc_root);
      info.cpu_seconds = again.cpu_seconds;
    }
  }
  for (auto& [pid, info] : processes) tracker.update(pid, info, now());
  tracker.retain(processes);
  return processes;
}

}  // namespace gpuwatch::status
