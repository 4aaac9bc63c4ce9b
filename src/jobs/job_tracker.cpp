#include "jobs/job_tracker.hpp"

namespace gpuwatch::jobs {

JobProcesses job_processes(const core::DeviceSnapshot& device, ProcessTree& tree, const VisibleDevices& visible) {
  JobProcesses out;
  const std::string uuid = device.get(core::FieldId::Uuid).as_string().value_or("");
  for (const auto& p : device.processes) {
    if (!tree.contains(p.pid)) continue;
    std::optional<std::string> mig_uuid;
    if (p.gpu_instance_id) {
      for (const auto& m : device.mig_devices) {
        if (m.gpu_instance_id == *p.gpu_instance_id &&
            (!p.compute_instance_id || m.compute_instance_id == *p.compute_instance_id)) {
          mig_uuid = m.uuid;
          break;
        }
      }
    }
    if (!is_visible(visible, device.index, uuid, mig_uuid ? std::optional<std::string_view>(*mig_uuid) : std::nullopt))
      continue;
    out.pids.insert(p.pid);
    if (p.gpu_instance_id) out.gpu_instances.insert(*p.gpu_instance_id);
  }
  return out;
}

void JobTracker::observe(const core::DeviceSnapshot& device, TimePoint at) {
  std::lock_guard lock(mutex_);
  JobProcesses job = job_processes(device, tree_, visible_);
  DeviceStats& stats = devices_[device.index];
  jobs::observe(stats, device, at, job.pids, job.gpu_instances);
}

std::vector<DeviceStats> JobTracker::stats() const {
  std::lock_guard lock(mutex_);
  std::vector<DeviceStats> out;
  for (const auto& [index, s] : devices_) out.push_back(s);
  return out;
}

}  // namespace gpuwatch::jobs
