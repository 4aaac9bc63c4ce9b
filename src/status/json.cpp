#include "status/json.hpp"

#include "attribution/attribution_json.hpp"
#include "diagnose/finding_json.hpp"

#include <chrono>

#include "core/field_table.hpp"
#include "status/host_line.hpp"
#include "status/throttle.hpp"

namespace gpuwatch::status {
namespace {

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); }

nlohmann::ordered_json process_json(const core::ProcessSample& process, const StatusContext& context) {
  nlohmann::ordered_json p;
  p["pid"] = process.pid;
  p["type"] = core::to_string(process.type);
  p["used_memory_bytes"] = process.used_memory_bytes ? nlohmann::ordered_json(*process.used_memory_bytes) : nlohmann::ordered_json();
  auto found = context.processes.find(process.pid);
  const host::ProcessInfo* info = found == context.processes.end() ? nullptr : &found->second;
  p["user"] = info ? optional_json(info->user) : nlohmann::ordered_json();
  std::optional<std::string> command = info ? info->command() : std::nullopt;
  if (!command && !process.name.empty()) command = process.name;
  p["command"] = optional_json(command);
  p["command_line"] = info ? optional_json(info->command_line) : nlohmann::ordered_json();
  p["gpu_instance_id"] = process.gpu_instance_id ? nlohmann::ordered_json(*process.gpu_instance_id) : nlohmann::ordered_json();
  p["compute_instance_id"] =
      process.compute_instance_id ? nlohmann::ordered_json(*process.compute_instance_id) : nlohmann::ordered_json();
  // issue 9: what nvtop and nvitop show per process. GPU: the driver's per-process utilization: SM
  // share (null when NVML reported no sample for it); host CPU: 1.0 = one core, over the process's
  // life at its first reading or over the last interval after (host_cpu_basis); host RSS in bytes.
  p["utilization_gpu_ratio"] = optional_json(process.sm_ratio);
  p["host_cpu_ratio"] = info ? optional_json(info->cpu_ratio) : nlohmann::ordered_json();
  p["host_cpu_basis"] = info && info->cpu_ratio ? nlohmann::ordered_json(info->cpu_over_lifetime ? "lifetime" : "interval")
                                                : nlohmann::ordered_json();
  p["host_memory_rss_bytes"] = info ? optional_json(info->rss_bytes) : nlohmann::ordered_json();
  // issue 15: container, pod and Slurm job; every key present, null when not known.
  auto owner = context.owners.find(process.pid);
  p["owner"] = attribution::attribution_json(owner == context.owners.end() ? attribution::Attribution{} : owner->second);
  return p;
}

nlohmann::ordered_json device_json(const core::DeviceSnapshot& device, const core::Snapshot& snapshot,
                           const StatusContext& context) {
  nlohmann::ordered_json d;
  d["index"] = device.index;
  d["vendor"] = core::to_string(device.vendor);  // issue 28: "nvidia", "amd", "intel"
  d["state"] = core::to_string(device.state);
  d["timed_out"] = device.state == core::DeviceState::TimedOut;  // issue 16: its values are null, never zero
  d["error"] = device.state == core::DeviceState::Ok ? nlohmann::ordered_json() : nlohmann::ordered_json(snapshot.error_string(device.error));
  for (core::FieldId id : status_fields()) {
    d[std::string(core::field_info(id).json_key)] = reading_json(device.get(id));
  }
  if (auto reasons = active_throttle_reasons(device)) {
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const auto& reason : *reasons) names.push_back(reason.key);
    d["throttle_reasons"] = std::move(names);  // every active clock-event reason, by field name
  } else {
    d["throttle_reasons"] = nullptr;
  }
  if (device.processes_status == core::FieldStatus::Ok) {
    nlohmann::ordered_json processes = nlohmann::ordered_json::array();
    for (const auto& process : device.processes) processes.push_back(process_json(process, context));
    d["processes"] = std::move(processes);
  } else {
    d["processes"] = nullptr;  // not readable on this GPU (or the GPU is lost)
  }
  return d;
}

}  // namespace

nlohmann::ordered_json reading_json(const core::FieldReading& reading) {
  if (!reading.ok()) return nullptr;
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, *reading.value);
}

nlohmann::ordered_json status_json(const core::Snapshot& snapshot, const StatusContext& context) {
  nlohmann::ordered_json out;
  out["hostname"] = context.hostname;
  out["timestamp_s"] =
      std::chrono::duration<double>(snapshot.timestamp.time_since_epoch()).count();
  out["driver_version"] = optional_json(snapshot.driver_version);
  out["cuda_driver_version"] =
      snapshot.cuda_driver_version ? nlohmann::ordered_json(*snapshot.cuda_driver_version) : nlohmann::ordered_json();
  out["simulated_scenario"] = optional_json(context.simulated_scenario);
  if (context.host) out["host"] = host_json(*context.host);  // issue 25: the host's CPU, memory, disks, network
  out["device_count"] = snapshot.device_count;
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const auto& device : snapshot.devices) gpus.push_back(device_json(device, snapshot, context));
  out["gpus"] = std::move(gpus);
  out["findings"] = diagnose::findings_json(context.findings)["findings"];  // active diagnose findings (issue 10)
  return out;
}

}  // namespace gpuwatch::status
