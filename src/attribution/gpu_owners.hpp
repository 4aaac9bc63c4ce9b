#pragma once
// Who holds one GPU, for labels on its series (dcgm-exporter's `pod`, `namespace`, `container`,
// `hpc_job`): the pods the kubelet gave it to, and the Slurm jobs of the mapping file or of
// the processes running on it. Pure.
#include <string>
#include <vector>

#include "attribution/attribution.hpp"
#include "attribution/job_mapping.hpp"
#include "attribution/pod_resources.hpp"

namespace gpuwatch::attribution {

struct GpuOwners {
  std::vector<PodMatch> pods;     // sorted by namespace, pod, container; no duplicates
  std::vector<std::string> jobs;  // sorted, no duplicates
  bool empty() const { return pods.empty() && jobs.empty(); }
};

// GPU_KEY: the mapping-file name of the GPU ("0"); UUID: its NVML UUID. PROCESSES: the
// attributions of the processes NVML reports on it.
GpuOwners owners_of_gpu(const std::string& gpu_key, const std::string& uuid, const PodResourceList& pods,
                        const JobMapping& jobs, const std::vector<Attribution>& processes);

// Label values: several owners are joined with ',' in sorted order (one series per GPU, where
// dcgm-exporter repeats the series per pod); no owner: "" (the label is then left out).
struct OwnerLabels {
  std::string pod, pod_namespace, container, hpc_job;
};
OwnerLabels owner_labels(const GpuOwners& owners);

}  // namespace gpuwatch::attribution
