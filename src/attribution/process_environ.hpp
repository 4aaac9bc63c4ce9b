#pragma once
// What a process's environment says about who runs it: parses /proc/PID/environ (NUL-separated
// NAME=value). Pure; no I/O. Only the variables below are kept.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::attribution {

struct EnvironFacts {
  std::optional<std::string> slurm_job_id;   // SLURM_JOB_ID (or the older SLURM_JOBID)
  std::optional<std::string> slurm_step_id;  // SLURM_STEP_ID (or SLURM_STEPID)
  std::optional<std::string> slurm_job_user; // SLURM_JOB_USER
  std::optional<std::string> hostname;       // HOSTNAME: a pod's name unless it uses the host network
  // NVIDIA_VISIBLE_DEVICES as set by the device plugin (GPU or MIG UUIDs); empty when unset,
  // "all", "none" or "void".
  std::vector<std::string> visible_devices;
};

EnvironFacts parse_environ(std::string_view content);

}  // namespace gpuwatch::attribution
