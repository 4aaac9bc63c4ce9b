#include "recorder/owner_spans.hpp"

#include "recorder/gpu_key.hpp"
#include "store/history_writer.hpp"  // to_unix_ms

namespace gpuwatch::recorder {

store::ProcessOwner stored_owner(const attribution::Attribution& a) {
  store::ProcessOwner o;
  if (a.runtime) o.runtime = attribution::to_string(*a.runtime);
  o.container_id = a.container_id;
  o.container_name = a.container_name;
  o.pod_uid = a.pod_uid;
  o.pod_namespace = a.pod_namespace;
  o.pod_name = a.pod_name;
  o.pod_container = a.pod_container;
  o.slurm_job = a.slurm_job_id;
  o.slurm_step = a.slurm_step;
  o.slurm_user = a.slurm_user;
  return o;
}

void OwnerSpans::observe(const core::Snapshot& snapshot, const std::map<unsigned, attribution::Attribution>& owners) {
  const std::int64_t t = store::to_unix_ms(snapshot.timestamp);
  book_.begin(t);
  for (const auto& device : snapshot.devices) {
    const auto uuid = device.get(core::FieldId::Uuid).as_string();
    const std::string key = history_gpu_key(device);
    for (const auto& process : device.processes) {
      auto owner = owners.find(process.pid);
      if (owner == owners.end() || owner->second.empty()) continue;
      store::ProcessOwner stored = stored_owner(owner->second);
      book_.see(
          key, process.pid, [&](const store::OwnerSpanRow& open) { return open.owner == stored; },
          [&](store::OwnerSpanRow& open) { open.gpu_index = device.index; },
          [&] { return store::OwnerSpanRow{key, uuid, device.index, process.pid, t, t, stored}; });
    }
  }
  book_.end();
}

}  // namespace gpuwatch::recorder
