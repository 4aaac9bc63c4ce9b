#include "attribution/gpu_owners.hpp"

#include <algorithm>
#include <tuple>

namespace gpuwatch::attribution {
namespace {

std::string join(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += ",";
    out += v;
  }
  return out;
}

}  // namespace

GpuOwners owners_of_gpu(const std::string& gpu_key, const std::string& uuid, const PodResourceList& pods,
                        const JobMapping& jobs, const std::vector<Attribution>& processes) {
  GpuOwners owners;
  for (const auto& holder : holders_of(pods, uuid)) {
    owners.pods.push_back({holder.pod_name, holder.pod_namespace, holder.container_name});
  }
  if (auto found = jobs.find(gpu_key); found != jobs.end()) owners.jobs = found->second;
  for (const auto& process : processes) {
    if (process.slurm_job_id) owners.jobs.push_back(*process.slurm_job_id);
    if (process.pod_name) {
      owners.pods.push_back({*process.pod_name, process.pod_namespace.value_or(""), process.pod_container.value_or("")});
    }
  }
  auto key = [](const PodMatch& p) { return std::tie(p.pod_namespace, p.pod_name, p.container_name); };
  std::sort(owners.pods.begin(), owners.pods.end(), [&](const PodMatch& a, const PodMatch& b) { return key(a) < key(b); });
  owners.pods.erase(std::unique(owners.pods.begin(), owners.pods.end(),
                                [&](const PodMatch& a, const PodMatch& b) { return key(a) == key(b); }),
                    owners.pods.end());
  std::sort(owners.jobs.begin(), owners.jobs.end());
  owners.jobs.erase(std::unique(owners.jobs.begin(), owners.jobs.end()), owners.jobs.end());
  return owners;
}

OwnerLabels owner_labels(const GpuOwners& owners) {
  std::vector<std::string> pods, namespaces, containers;
  for (const auto& p : owners.pods) {
    pods.push_back(p.pod_name);
    namespaces.push_back(p.pod_namespace);
    containers.push_back(p.container_name);
  }
  auto unique_join = [](std::vector<std::string> values) {
    std::vector<std::string> seen;
    for (auto& v : values) {
      if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(std::move(v));
    }
    return join(seen);
  };
  return {unique_join(pods), unique_join(namespaces), unique_join(containers), unique_join(owners.jobs)};
}

}  // namespace gpuwatch::attribution
