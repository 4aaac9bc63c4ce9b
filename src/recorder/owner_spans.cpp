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
  std::map<Key, Span> seen;
  for (const auto& device : snapshot.devices) {
    const auto uuid = device.get(core::FieldId::Uuid).as_string();
    const std::string key = history_gpu_key(device);
    for (const auto& process : device.processes) {
      auto owner = owners.find(process.pid);
      if (owner == owners.end() || owner->second.empty()) continue;
      store::ProcessOwner stored = stored_owner(owner->second);
      const Key k{key, process.pid};
      if (seen.count(k)) continue;  // a PID listed twice on one GPU (compute and graphics)
      auto open = open_.find(k);
      if (open != open_.end() && open->second.row.owner == stored && t >= open->second.row.last_ms) {
        Span span = std::move(open->second);
        span.row.last_ms = t;
        span.row.gpu_index = device.index;
        span.dirty = true;
        open_.erase(open);
        seen.emplace(k, std::move(span));
        continue;
      }
      store::OwnerSpanRow row{key, uuid, device.index, process.pid, t, t, std::move(stored)};
      seen.emplace(k, Span{std::move(row), true});
    }
  }
  // What was open and is not in this sample (gone, or another owner now) has ended.
  for (auto& [k, span] : open_) {
    if (span.dirty) closed_.push_back(std::move(span.row));
  }
  open_ = std::move(seen);
}

std::vector<store::OwnerSpanRow> OwnerSpans::pending() const {
  std::vector<store::OwnerSpanRow> out = closed_;
  for (const auto& [k, span] : open_) {
    if (span.dirty) out.push_back(span.row);
  }
  return out;
}

void OwnerSpans::written() {
  closed_.clear();
  for (auto& [k, span] : open_) span.dirty = false;
}

}  // namespace gpuwatch::recorder
