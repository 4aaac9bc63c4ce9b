// read_processes (declared in field_readers.hpp): compute + graphics process lists,
// names, and optional per-process utilization.
#include <algorithm>

#include "nvml/field_readers.hpp"
#include "nvml/field_writer.hpp"

namespace gpuwatch::nvml {
namespace {

void merge(std::vector<core::ProcessSample>& out, const std::vector<RawProcess>& raw, core::ProcessType type) {
  for (const auto& r : raw) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.pid == r.pid; });
    if (it != out.end()) {
      if (it->type != type) it->type = core::ProcessType::ComputeAndGraphics;
      continue;
    }
    core::ProcessSample p;
    p.pid = r.pid;
    p.used_memory_bytes = r.used_memory_bytes;
    p.type = type;
    p.gpu_instance_id = r.gpu_instance_id;
    p.compute_instance_id = r.compute_instance_id;
    out.push_back(std::move(p));
  }
}

void read_utilization(const NvmlApi& api, nvmlDevice_t dev, unsigned long long* since_us,
                      std::vector<core::ProcessSample>& processes) {
  auto fn = api.raw().nvmlDeviceGetProcessUtilization;
  if (fn == nullptr || processes.empty()) return;
  unsigned count = 0;
  nvmlReturn_t rc = fn(dev, nullptr, &count, *since_us);
  if (rc != NVML_ERROR_INSUFFICIENT_SIZE || count == 0) return;  // NOT_FOUND: no samples this period
  thread_local std::vector<nvmlProcessUtilizationSample_t> samples;
  samples.resize(count);
  rc = fn(dev, samples.data(), &count, *since_us);
  if (rc != NVML_SUCCESS) return;
  samples.resize(std::min<std::size_t>(count, samples.size()));
  unsigned long long newest = *since_us;
  for (const auto& s : samples) {
    // Drop garbage entries (nvtop#110) and samples older than asked for.
    if (s.smUtil > 100 || s.memUtil > 100 || s.encUtil > 100 || s.decUtil > 100 || s.timeStamp <= *since_us) continue;
    for (auto& p : processes) {
      if (s.pid != p.pid) continue;
      p.sm_ratio = s.smUtil * detail::kPercent;
      p.memory_ratio = s.memUtil * detail::kPercent;
      p.encoder_ratio = s.encUtil * detail::kPercent;
      p.decoder_ratio = s.decUtil * detail::kPercent;
    }
    newest = std::max(newest, s.timeStamp);
  }
  *since_us = newest;
}

}  // namespace

nvmlReturn_t read_processes(const NvmlApi& api, nvmlDevice_t dev, unsigned long long* utilization_since_us,
                            core::DeviceSnapshot& device) {
  thread_local std::vector<RawProcess> compute, graphics;  // reused: sampling is a hot path
  nvmlReturn_t rc_compute = api.running_processes(dev, ProcessKind::Compute, &compute);
  nvmlReturn_t rc_graphics = api.running_processes(dev, ProcessKind::Graphics, &graphics);
  device.processes.clear();
  if (rc_compute != NVML_SUCCESS && rc_graphics != NVML_SUCCESS) {
    device.processes_status = status_from_nvml(rc_compute);
    device.processes_error = error_from_nvml(rc_compute);
    return rc_compute;
  }
  merge(device.processes, compute, core::ProcessType::Compute);
  merge(device.processes, graphics, core::ProcessType::Graphics);
  if (auto name_fn = api.raw().nvmlSystemGetProcessName) {
    for (auto& p : device.processes) {
      char buf[256] = {};
      if (name_fn(p.pid, buf, static_cast<unsigned>(sizeof buf)) == NVML_SUCCESS) p.name = buf;
    }
  }
  if (utilization_since_us != nullptr) read_utilization(api, dev, utilization_since_us, device.processes);
  device.processes_status = core::FieldStatus::Ok;
  device.processes_error = {};
  return rc_compute == NVML_ERROR_GPU_IS_LOST || rc_graphics == NVML_ERROR_GPU_IS_LOST ? NVML_ERROR_GPU_IS_LOST
                                                                                         : NVML_SUCCESS;
}

}  // namespace gpuwatch::nvml
