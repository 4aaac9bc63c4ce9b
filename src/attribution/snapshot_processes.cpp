#include "attribution/snapshot_processes.hpp"

namespace gpuwatch::attribution {

std::vector<GpuProcess> gpu_processes(const core::Snapshot& snapshot) {
  std::vector<GpuProcess> out;
  for (const auto& device : snapshot.devices) {
    std::string uuid = device.get(core::FieldId::Uuid).as_string().value_or("");
    for (const auto& process : device.processes) out.push_back({process.pid, device.index, uuid});
  }
  return out;
}

std::map<unsigned, Attribution> attribute_once(Attributor& attributor, const core::Snapshot& snapshot) {
  auto processes = gpu_processes(snapshot);
  if (processes.empty()) return {};
  attributor.attribute(processes);  // reads /proc and queues the container names to ask for
  attributor.refresh();
  return attributor.attribute(processes);
}

DeviceOwners attribute_device(Attributor& attributor, const core::DeviceSnapshot& device) {
  DeviceOwners out;
  std::string uuid = device.get(core::FieldId::Uuid).as_string().value_or("");
  std::vector<GpuProcess> processes;
  for (const auto& process : device.processes) processes.push_back({process.pid, device.index, uuid});
  if (!processes.empty()) out.processes = attributor.attribute(processes);
  std::vector<Attribution> of_processes;
  for (const auto& [pid, a] : out.processes) of_processes.push_back(a);
  out.labels = owner_labels(attributor.owners(device.index, uuid, of_processes));
  return out;
}

}  // namespace gpuwatch::attribution
