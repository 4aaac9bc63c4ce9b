#include "attribution/attribution_json.hpp"

namespace gpuwatch::attribution {
namespace {

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

}  // namespace

nlohmann::ordered_json attribution_json(const Attribution& a) {
  nlohmann::ordered_json j;
  j["summary"] = a.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.summary());
  j["runtime"] = a.runtime ? nlohmann::ordered_json(to_string(*a.runtime)) : nlohmann::ordered_json();
  j["container_id"] = or_null(a.container_id);
  j["container_name"] = or_null(a.container_name);
  j["container_pid"] = or_null(a.container_pid);
  j["pod_uid"] = or_null(a.pod_uid);
  j["pod_qos"] = or_null(a.pod_qos);
  j["pod"] = or_null(a.pod_name);
  j["namespace"] = or_null(a.pod_namespace);
  j["container"] = or_null(a.pod_container);
  j["slurm_job_id"] = or_null(a.slurm_job_id);
  j["slurm_step"] = or_null(a.slurm_step);
  j["slurm_user"] = or_null(a.slurm_user);
  return j;
}

}  // namespace gpuwatch::attribution
