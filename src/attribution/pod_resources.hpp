#pragma once
// The kubelet's pod-resources answer as plain values, and the matching of processes and GPUs to
// pods over it. Pure; the gRPC call is kubelet_client.hpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/process_environ.hpp"

namespace gpuwatch::attribution {

// One container of one pod and the devices of one resource it was given.
struct PodDevices {
  std::string pod_name;
  std::string pod_namespace;
  std::string container_name;
  std::string resource_name;            // "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"
  std::vector<std::string> device_ids;  // GPU or MIG UUIDs; "<uuid>::<n>" for a time-sliced replica
  bool operator==(const PodDevices&) const = default;
};
using PodResourceList = std::vector<PodDevices>;

// A device id without its time-slicing replica suffix: "GPU-x::3" -> "GPU-x".
std::string_view physical_device_id(std::string_view device_id);

// The pod containers given DEVICE (a GPU or MIG UUID), one per (pod, namespace, container).
std::vector<PodDevices> holders_of(const PodResourceList& list, std::string_view device);

struct PodMatch {
  std::string pod_name, pod_namespace, container_name;
};

// Which pod container a process belongs to. GPU_UUIDS: the GPUs NVML reported it on. The
// candidates are the containers given one of those GPUs or one of the process's
// NVIDIA_VISIBLE_DEVICES; one candidate is the answer; several (time-slicing, MPS): the one whose
// pod name is the process's HOSTNAME; otherwise no answer rather than a guess.
std::optional<PodMatch> match_process(const PodResourceList& list, const std::vector<std::string>& gpu_uuids,
                                      const EnvironFacts& env);

}  // namespace gpuwatch::attribution
