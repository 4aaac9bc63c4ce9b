#pragma once
// What /proc says about the GPU processes of a snapshot, with their host CPU %.
// CPU % needs two readings of a process's CPU time. `status -i` keeps a CpuTracker across
// samples, so from the second frame on CPU % covers the interval between frames. A process
// seen for the first time (every process of a one-shot `status`) gets a second reading
// kFirstCpuWindow later: the one-shot status costs 100 ms more when a GPU has processes.
#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "core/snapshot.hpp"
#include "host/process_info.hpp"

namespace gpuwatch::status {

inline constexpr std::chrono::milliseconds kFirstCpuWindow{100};

struct HostReader {
  std::string proc_root = "/proc";
  std::function<void(std::chrono::milliseconds)> sleep;  // empty: std::this_thread::sleep_for
  std::function<host::CpuTracker::Clock::time_point()> now;  // empty: steady_clock::now
};

// By PID; TRACKER remembers readings across calls and forgets processes that ended.
std::map<unsigned, host::ProcessInfo> read_host_processes(const core::Snapshot& snapshot, host::CpuTracker& tracker,
                                                          const HostReader& reader = {});

}  // namespace gpuwatch::status
