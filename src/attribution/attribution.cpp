#include "attribution/attribution.hpp"

namespace gpuwatch::attribution {

const char* to_string(Runtime runtime) {
  switch (runtime) {
    case Runtime::Docker: return "docker";
    case Runtime::Containerd: return "containerd";
    case Runtime::CriO: return "cri-o";
    case Runtime::Podman: return "podman";
  }
  return "unknown";
}

bool Attribution::empty() const { return *this == Attribution{}; }

std::string Attribution::summary() const {
  if (pod_name) return "pod " + (pod_namespace ? *pod_namespace + "/" : std::string()) + *pod_name;
  if (slurm_job_id) return "job " + *slurm_job_id + (slurm_step ? "." + *slurm_step : std::string());
  if (pod_uid) return "pod " + pod_uid->substr(0, 8);
  if (runtime) {
    std::string who = container_name ? *container_name : container_id ? container_id->substr(0, 12) : std::string("?");
    return std::string(to_string(*runtime)) + " " + who;
  }
  return "-";
}

void merge_into(Attribution& target, const Attribution& from) {
  auto fill = [](auto& to, const auto& value) {
    if (!to && value) to = value;
  };
  fill(target.runtime, from.runtime);
  fill(target.container_id, from.container_id);
  fill(target.container_name, from.container_name);
  fill(target.container_pid, from.container_pid);
  fill(target.pod_uid, from.pod_uid);
  fill(target.pod_qos, from.pod_qos);
  fill(target.pod_name, from.pod_name);
  fill(target.pod_namespace, from.pod_namespace);
  fill(target.pod_container, from.pod_container);
  fill(target.slurm_job_id, from.slurm_job_id);
  fill(target.slurm_step, from.slurm_step);
  fill(target.slurm_user, from.slurm_user);
}

}  // namespace gpuwatch::attribution
