#include "attribution/process_environ.hpp"

namespace gpuwatch::attribution {
namespace {

std::vector<std::string> split_devices(std::string_view list) {
  std::vector<std::string> out;
  if (list == "all" || list == "none" || list == "void") return out;
  while (!list.empty()) {
    auto comma = list.find(',');
    auto item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

EnvironFacts parse_environ(std::string_view content) {
  EnvironFacts facts;
  while (!content.empty()) {
    auto end = content.find('\0');
    std::string_view entry = content.substr(0, end);
    content.remove_prefix(end == std::string_view::npos ? content.size() : end + 1);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (value.empty()) continue;
    if (name == "SLURM_JOB_ID" || (name == "SLURM_JOBID" && !facts.slurm_job_id)) {
      facts.slurm_job_id = std::string(value);
    } else if (name == "SLURM_STEP_ID" || (name == "SLURM_STEPID" && !facts.slurm_step_id)) {
      facts.slurm_step_id = std::string(value);
    } else if (name == "SLURM_JOB_USER") {
      facts.slurm_job_user = std::string(value);
    } else if (name == "HOSTNAME") {
      facts.hostname = std::string(value);
    } else if (name == "NVIDIA_VISIBLE_DEVICES") {
      facts.visible_devices = split_devices(value);
    }
  }
  return facts;
}

}  // namespace gpuwatch::attribution
