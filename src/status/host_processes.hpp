#pragma once
// What /proc says about the GPU processes of a snapshot, with their host CPU %.
// CPU % needs two readings of a process's CPU time. `status -i` keeps a CpuTracker across
// samples, so from the second frame on CPU % covers the interval between frames. A process
// seen for the first time (every process of a one-shot `status`) gets its average since it
// started, as `ps` gives it (CPU time / run time), marked cpu_over_lifetime: the one-shot
// status waits for nothing (issue 26: a 100 ms second reading made it 10x slower).
#include <functional>
#include <map>
#include <string>

#include "core/snapshot.hpp"
#include "host/process_info.hpp"

namespace gpuwatch::status {

struct HostReader {
  std::string proc_root = "/proc";
  std::function<host::CpuTracker::Clock::time_point()> now;  // empty: steady_clock::now
};

// By PID; TRACKER remembers readings across calls and forgets processes that ended.
std::map<unsigned, host::ProcessInfo> read_host_processes(const core::Snapshot& snapshot, host::CpuTracker& tracker,
                                                          const HostReader& reader = {});

}  // namespace gpuwatch::status
