#pragma once
// The GPU side of a running job: every sample of every GPU goes through observe() (from the
// sampling threads, so it locks); it decides which of the GPU's processes belong to the job
// (ProcessTree, then CUDA_VISIBLE_DEVICES by index, GPU UUID or MIG UUID) and accumulates the
// GPU's DeviceStats. stats() copies them out for the summary.
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "core/snapshot.hpp"
#include "jobs/device_stats.hpp"
#include "jobs/process_tree.hpp"
#include "jobs/visible_devices.hpp"

namespace gpuwatch::jobs {

// The PIDs of DEVICE's processes that belong to the job and the GPU instances they run in.
struct JobProcesses {
  std::set<std::uint32_t> pids;
  std::set<std::uint32_t> gpu_instances;  // MIG only
};
JobProcesses job_processes(const core::DeviceSnapshot& device, ProcessTree& tree, const VisibleDevices& visible);

class JobTracker {
 public:
  JobTracker(ProcessTree tree, VisibleDevices visible) : tree_(std::move(tree)), visible_(std::move(visible)) {}

  // One finished sample of one GPU, taken at AT. Thread-safe.
  void observe(const core::DeviceSnapshot& device, TimePoint at);
  // Every GPU seen so far, by index (those the job did not use too: DeviceStats::used).
  std::vector<DeviceStats> stats() const;

 private:
  mutable std::mutex mutex_;
  ProcessTree tree_;
  VisibleDevices visible_;
  std::map<unsigned, DeviceStats> devices_;
};

}  // namespace gpuwatch::jobs
