#pragma once
// Who a GPU process belongs to: its container, Kubernetes pod and Slurm job. Every member is
// optional: absent means "not found out" (no container, no pod, the API did not answer), never
// an empty string or zero standing in for a value.
#include <optional>
#include <string>

namespace gpuwatch::attribution {

enum class Runtime { Docker, Containerd, CriO, Podman };
const char* to_string(Runtime runtime);

struct Attribution {
  // Container: from the cgroup path; the name from the runtime's API when it answered.
  std::optional<Runtime> runtime;
  std::optional<std::string> container_id;    // full id as in the cgroup path (64 hex for docker)
  std::optional<std::string> container_name;  // docker/podman name, without the leading '/'
  std::optional<unsigned> container_pid;      // the PID inside the process's PID namespace (status: NSpid)
  // Kubernetes: the pod UID from the cgroup path (dashes, as the API prints it); the rest from
  // the kubelet's pod-resources API.
  std::optional<std::string> pod_uid;
  std::optional<std::string> pod_qos;  // guaranteed, burstable, besteffort
  std::optional<std::string> pod_name;
  std::optional<std::string> pod_namespace;
  std::optional<std::string> pod_container;  // the container's name in the pod spec
  // Slurm: the job and step from the cgroup path, SLURM_JOB_ID, or the hpc-job mapping files.
  std::optional<std::string> slurm_job_id;
  std::optional<std::string> slurm_step;      // "0", "batch", "extern", "interactive"
  std::optional<std::string> slurm_user;      // SLURM_JOB_USER, else the uid of the cgroup path

  bool empty() const;
  // One short word for a table column: "pod ns/name", "job 1234.0", "docker name" (or the
  // first 12 characters of the id), "-" when nothing is known.
  std::string summary() const;
  bool operator==(const Attribution&) const = default;
};

// Fills the members absent in TARGET from FROM (TARGET's own values win).
void merge_into(Attribution& target, const Attribution& from);

}  // namespace gpuwatch::attribution
