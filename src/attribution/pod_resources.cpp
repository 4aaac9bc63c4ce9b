#include "attribution/pod_resources.hpp"

#include <algorithm>

namespace gpuwatch::attribution {

std::string_view physical_device_id(std::string_view device_id) {
  auto replica = device_id.find("::");
  return replica == std::string_view::npos ? device_id : device_id.substr(0, replica);
}

std::vector<PodDevices> holders_of(const PodResourceList& list, std::string_view device) {
  std::vector<PodDevices> out;
  for (const auto& entry : list) {
    bool holds = std::any_of(entry.device_ids.begin(), entry.device_ids.end(),
                             [&](const std::string& id) { return physical_device_id(id) == device; });
    if (!holds) continue;
    bool seen = std::any_of(out.begin(), out.end(), [&](const PodDevices& o) {
      return o.pod_name == entry.pod_name && o.pod_namespace == entry.pod_namespace &&
             o.container_name == entry.container_name;
    });
    if (!seen) out.push_back(entry);
  }
  return out;
}

std::optional<PodMatch> match_process(const PodResourceList& list, const std::vector<std::string>& gpu_uuids,
                                      const EnvironFacts& env) {
  std::vector<PodMatch> candidates;
  auto add = [&](const std::string& device) {
    for (const auto& holder : holders_of(list, device)) {
      bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const PodMatch& c) {
        return c.pod_name == holder.pod_name && c.pod_namespace == holder.pod_namespace &&
               c.container_name == holder.container_name;
      });
      if (!seen) candidates.push_back({holder.pod_name, holder.pod_namespace, holder.container_name});
    }
  };
  for (const auto& uuid : gpu_uuids) add(uuid);
  for (const auto& device : env.visible_devices) add(device);
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty() || !env.hostname) return std::nullopt;
  std::vector<PodMatch> named;
  std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(named),
               [&](const PodMatch& c) { return c.pod_name == *env.hostname; });
  if (named.size() == 1) return named.front();
  return std::nullopt;
}

}  // namespace gpuwatch::attribution
