#include "exporter/prometheus_encoder.hpp"

#include "exporter/owner_labels.hpp"

#include <variant>

#include "exporter/dcgm_compat.hpp"
#include "exporter/energy_metrics.hpp"
#include "exporter/alert_metrics.hpp"
#include "exporter/finding_metrics.hpp"
#include "exporter/host_metrics.hpp"
#include "exporter/metric_list.hpp"
#include "exporter/mig_metrics.hpp"
#include "exporter/nvidia_smi_compat.hpp"
#include "exporter/text_family.hpp"
#include "exporter/xid_metrics.hpp"

namespace gpuwatch::exporter {
namespace {

using core::DeviceSnapshot;
using core::FieldId;

// gpu="0",uuid="GPU-...",vendor="nvidia" for every per-GPU series (rendered once per encoding,
// shared by every family).
std::string device_labels(const DeviceSnapshot& device) {
  std::string labels;
  add_label(labels, "gpu", std::to_string(device.index));
  add_label(labels, "uuid", label_text_of(device, FieldId::Uuid));
  add_label(labels, "vendor", core::to_string(device.vendor));
  return labels;
}

void encode_self(const live::LiveView& view, const EncodeOptions& options, const std::vector<std::string>& labels,
                 std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  {
    Family f(out, "gpuwatch_build_info", "gauge", "gpuwatch build, always 1");
    std::string l;
    add_label(l, "version", options.version);
    f.sample(l, "1");
  }
  Family(out, "gpuwatch_collector_success", "gauge", "1 when every GPU was sampled fresh, 0 otherwise")
      .sample("", view.collector_success ? "1" : "0");
  Family(out, "gpuwatch_gpus", "gauge", "GPUs that NVML reports (nvmlDeviceGetCount)")
      .sample("", std::to_string(snap.device_count));
  Family up(out, "gpuwatch_up", "gauge", "1 when the GPU's latest sample is fresh and the GPU answered, 0 otherwise");
  Family lost(out, "gpuwatch_gpu_lost", "gauge", "1 when NVML reports the GPU lost (fell off the bus), 0 otherwise");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    up.sample(labels[i], view.status[i].up ? "1" : "0");
  }
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    if (!view.status[i].has_sample) continue;
    lost.sample(labels[i], snap.devices[i].state == core::DeviceState::Lost ? "1" : "0");
  }
  Family age(out, "gpuwatch_sample_age_seconds", "gauge",
             "Seconds since the GPU's latest finished sample started (grows while an NVML call hangs)");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    if (view.status[i].has_sample) age.sample(labels[i], format_double(view.status[i].sample_age_seconds));
  }
  Family duration(out, "gpuwatch_collector_duration_seconds", "gauge", "How long the GPU's latest sample took");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    if (view.status[i].has_sample) duration.sample(labels[i], format_double(view.status[i].collect_duration_seconds));
  }
  Family errors(out, "gpuwatch_nvml_errors_total", "counter", "Failed NVML reads by field and NVML return code");
  for (const auto& e : view.nvml_errors) {
    std::string l;
    add_label(l, "field", e.field);
    add_label(l, "code", std::to_string(e.code));
    errors.sample(l, std::to_string(e.count));
  }
}

void encode_info(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  Family info(out, "gpuwatch_gpu_info", "gauge", "GPU identity, always 1; the labels carry it");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    std::string l = labels[i];
    if (snap.driver_version) add_label(l, "driver_version", *snap.driver_version);
    for (const auto& label : info_labels()) {
      auto text = snap.devices[i].get(label.field).as_string();
      if (text) add_label(l, label.label, *text);
    }
    info.sample(l, "1");
  }
}

void encode_fields(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  for (const auto& spec : metric_specs()) {
    if (spec.field == FieldId::EnergyTotal) {  // the counter, or power integrated where there is none
      encode_energy_native(view, labels, out);
      continue;
    }
    Family family(out, spec.name, to_string(spec.type), spec.help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!view.status[i].up) continue;
      const core::FieldReading& reading = snap.devices[i].get(spec.field);
      if (!reading.ok() || std::holds_alternative<std::string>(*reading.value)) continue;
      family.sample(labels[i], format_sample_value(*reading.value));
    }
  }
}

void encode_process_counts(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  Family count(out, "gpuwatch_processes", "gauge", "Processes (compute and graphics) that hold a context on the GPU");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    const DeviceSnapshot& device = snap.devices[i];
    if (!view.status[i].up || device.processes_status != core::FieldStatus::Ok) continue;
    count.sample(labels[i], std::to_string(device.processes.size()));
  }
}

void encode_processes(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  Family memory(out, "gpuwatch_process_memory_used_bytes", "gauge", "GPU memory used by a process");
  Family sm(out, "gpuwatch_process_sm_utilization_ratio", "gauge",
            "Share of the GPU's SM time a process used in the last period (0-1)");
  for (std::size_t pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!view.status[i].up) continue;
      for (const auto& p : snap.devices[i].processes) {
        std::string l = labels[i];
        add_label(l, "pid", std::to_string(p.pid));
        add_label(l, "process_name", p.name);
        auto user = view.process_users.find(p.pid);
        add_label(l, "user", user != view.process_users.end() ? user->second : std::string());
        add_label(l, "type", core::to_string(p.type));
        if (pass == 0 && p.used_memory_bytes) memory.sample(l, std::to_string(*p.used_memory_bytes));
        if (pass == 1 && p.sm_ratio) sm.sample(l, format_double(*p.sm_ratio));
      }
    }
  }
}

}  // namespace

void encode_prometheus(const live::LiveView& view, const EncodeOptions& options, std::string& out) {
  out.clear();
  if (view.snapshot == nullptr || view.status.size() != view.snapshot->devices.size()) return;
  std::vector<std::string> labels;
  labels.reserve(view.snapshot->devices.size());
  for (const auto& device : view.snapshot->devices) labels.push_back(device_labels(device));
  if (options.attribution_labels && view.gpu_owners.size() == labels.size()) {
    for (std::size_t i = 0; i < labels.size(); ++i) add_owner_labels(labels[i], view.gpu_owners[i]);
  }
  encode_self(view, options, labels, out);
  encode_info(view, labels, out);
  encode_fields(view, labels, out);
  encode_process_counts(view, labels, out);
  encode_xid_native(view, labels, out);
  encode_findings(view, labels, out);
  encode_alerts(view, labels, out);
  encode_mig_native(view, labels, out);
  encode_host_native(view, options.per_process, out);  // issue 25: gpuwatch_host_*, when the host is sampled
  if (options.per_process) encode_processes(view, labels, out);
  if (options.compat_dcgm) encode_dcgm_compat(view, options, out);
  if (options.compat_nvidia_smi) encode_nvidia_smi_compat(view, out);
}

void to_openmetrics(std::string& text) {
  std::string out;
  out.reserve(text.size() + 64);
  std::string_view rest = text;
  auto next_line = [&rest]() {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    return line;
  };
  while (!rest.empty()) {
    std::string_view line = next_line();
    if (line.rfind("# HELP ", 0) != 0 || rest.rfind("# TYPE ", 0) != 0) {
      out.append(line).append("\n");
      continue;
    }
    std::string_view type_line = next_line();
    std::string_view name_and_type = type_line.substr(7);
    auto space = name_and_type.find(' ');
    std::string_view name = name_and_type.substr(0, space);
    std::string_view type = space == std::string_view::npos ? std::string_view() : name_and_type.substr(space + 1);
    std::string_view help = line.substr(7 + name.size());  // " text"
    if (type == "counter") {
      constexpr std::string_view kTotal = "_total";
      bool has_total = name.size() > kTotal.size() && name.substr(name.size() - kTotal.size()) == kTotal;
      std::string_view family = has_total ? name.substr(0, name.size() - kTotal.size()) : name;
      out.append("# HELP ").append(family).append(help).append("\n");
      out.append("# TYPE ").append(family).append(has_total ? " counter\n" : " unknown\n");
    } else {
      out.append(line).append("\n").append(type_line).append("\n");
    }
  }
  out += "# EOF\n";
  text.swap(out);
}

bool accepts_openmetrics(std::string_view accept) {
  return accept.find("application/openmetrics-text") != std::string_view::npos;
}

std::string encode_prometheus(const live::LiveView& view, const EncodeOptions& options) {
  std::string out;
  encode_prometheus(view, options, out);
  return out;
}

}  // namespace gpuwatch::exporter
