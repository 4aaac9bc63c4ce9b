#include "tui/model.hpp"

#include <algorithm>

#include "diagnose/finding_text.hpp"
#include "status/host_line.hpp"
#include "status/throttle.hpp"

namespace gpuwatch::tui {

using core::FieldId;

std::optional<double> GpuView::memory_ratio() const {
  if (!memory_used_bytes || !memory_total_bytes || *memory_total_bytes <= 0) return std::nullopt;
  return *memory_used_bytes / *memory_total_bytes;
}

std::optional<double> GpuView::power_ratio() const {
  if (!power_w || !power_limit_w || *power_limit_w <= 0) return std::nullopt;
  return *power_w / *power_limit_w;
}

void tag_vendors(std::vector<GpuView>& gpus) {
  const bool mixed = std::any_of(gpus.begin(), gpus.end(), [](const GpuView& g) { return g.vendor != core::Vendor::Nvidia; });
  for (auto& g : gpus) g.vendor_tag = mixed ? core::to_string(g.vendor) : "";
}

HostLineView make_host_line_view(const host_signals::HostSample& host) {
  const terminal::Style plain(false);  // top colours by tone, not by escapes
  HostLineView v;
  v.wide = status::host_line_parts(host, plain, false);
  v.brief = status::host_line_parts(host, plain, true);
  v.cpu = status::host_cpu_severity(host.cpu_busy_percent);
  return v;
}

GpuView make_gpu_view(const core::DeviceSnapshot& device, const live::DeviceStatus& status,
                      std::span<const diagnose::Finding> findings) {
  GpuView v;
  v.index = device.index;
  v.name = device.get(FieldId::Name).as_string().value_or("");
  v.vendor = device.vendor;
  v.age_seconds = status.sample_age_seconds;
  if (!status.has_sample) {
    v.health = GpuHealth::Waiting;
    v.error = "waiting for the first sample";
  } else if (device.state != core::DeviceState::Ok) {
    v.health = GpuHealth::Lost;
    v.error = device.state == core::DeviceState::Lost ? "GPU is lost" : "GPU is inaccessible";
  } else if (!status.up) {
    v.health = GpuHealth::Stale;
    v.error = "not answering";
  } else {
    v.health = GpuHealth::Up;
  }
  if (device.state == core::DeviceState::Ok && status.has_sample) {
    v.utilization_ratio = device.get(FieldId::UtilizationGpu).as_double();
    v.memory_used_bytes = device.get(FieldId::MemoryUsed).as_double();
    v.memory_total_bytes = device.get(FieldId::MemoryTotal).as_double();
    v.power_w = device.get(FieldId::PowerDraw).as_double();
    v.power_limit_w = device.get(FieldId::EnforcedPowerLimit).as_double();
    if (!v.power_limit_w) v.power_limit_w = device.get(FieldId::PowerLimit).as_double();
    v.temperature_c = device.get(FieldId::TemperatureGpu).as_double();
    v.slowdown_c = device.get(FieldId::TemperatureGpuSlowdown).as_double();
    v.sm_clock_hz = device.get(FieldId::ClocksCurrentSm).as_double();
    v.sm_max_hz = device.get(FieldId::ClocksMaxSm).as_double();
    v.memory_clock_hz = device.get(FieldId::ClocksCurrentMemory).as_double();
    v.pcie_rx_bytes_per_s = device.get(FieldId::PcieRxThroughput).as_double();
    v.pcie_tx_bytes_per_s = device.get(FieldId::PcieTxThroughput).as_double();
    v.fan_ratio = device.get(FieldId::FanSpeed).as_double();
    status::ThrottleMarker marker = status::throttle_marker(device);
    v.throttle = marker.joined(",");
    v.throttle_severity = marker.severity;
  }
  for (const auto& m : device.mig_devices) {
    MigView mig;
    mig.profile = m.profile;
    mig.gpu_instance_id = m.gpu_instance_id;
    mig.compute_instance_id = m.compute_instance_id;
    if (m.memory_used_bytes) mig.memory_used_bytes = static_cast<double>(*m.memory_used_bytes);
    if (m.memory_total_bytes) mig.memory_total_bytes = static_cast<double>(*m.memory_total_bytes);
    v.mig.push_back(mig);
  }
  // The worst active finding that involves this GPU (a finding of several GPUs shows on each).
  std::vector<diagnose::Finding> mine;
  for (const auto& f : findings) {
    if (f.active && std::find(f.gpus.begin(), f.gpus.end(), device.index) != f.gpus.end()) mine.push_back(f);
  }
  if (!mine.empty()) {
    auto worst = diagnose::worst_first(mine);
    v.finding = worst.front().summary.empty() ? worst.front().kind : worst.front().summary;
    v.finding_severity = worst.front().severity;
    if (worst.size() > 1) v.finding += " (+" + std::to_string(worst.size() - 1) + " more)";
  }
  return v;
}

std::vector<ProcessView> make_process_views(const core::Snapshot& snapshot,
                                            const std::map<std::uint32_t, HostProcess>& host,
                                            const std::map<std::uint32_t, std::string>& users) {
  std::vector<ProcessView> out;
  for (const auto& device : snapshot.devices) {
    for (const auto& p : device.processes) {
      ProcessView v;
      v.pid = p.pid;
      v.gpu = device.index;
      v.type = p.type;
      v.gpu_instance_id = p.gpu_instance_id;
      v.gpu_ratio = p.sm_ratio;
      if (p.used_memory_bytes) v.gpu_memory_bytes = static_cast<double>(*p.used_memory_bytes);
      v.command = p.name;
      if (auto found = host.find(p.pid); found != host.end()) {
        const host::ProcessInfo& info = found->second.info;
        v.user = info.user;
        v.cpu_ratio = info.cpu_ratio;
        if (info.rss_bytes) v.rss_bytes = static_cast<double>(*info.rss_bytes);
        v.elapsed_seconds = found->second.elapsed_seconds;
        v.ppid = found->second.ppid;
        if (info.command_line && !info.command_line->empty()) v.command = *info.command_line;
        else if (v.command.empty() && info.name) v.command = *info.name;
      }
      if (!v.user) {
        if (auto u = users.find(p.pid); u != users.end()) v.user = u->second;
      }
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace gpuwatch::tui
