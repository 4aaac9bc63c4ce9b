#include "exporter/nvidia_smi_compat.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "exporter/mig_metrics.hpp"
#include "exporter/text_family.hpp"
#include "exporter/xid_metrics.hpp"

namespace gpuwatch::exporter {
namespace {

using core::DeviceSnapshot;
using core::FieldId;

std::string_view smi_unit_suffix(core::Unit unit) {
  switch (unit) {
    case core::Unit::Bytes: return "_bytes";
    case core::Unit::Ratio: return "_ratio";
    case core::Unit::Watts: return "_watts";
    case core::Unit::Hertz: return "_clock_hz";
    case core::Unit::Seconds: return "_seconds";
    case core::Unit::Joules: return "_joules";
    case core::Unit::BytesPerSecond: return "_bytes_per_second";
    case core::Unit::Celsius:
    case core::Unit::None: break;
  }
  return "";
}

std::string smi_help(const core::FieldInfo& info) {
  return fmt::format("{} (nvidia-smi {})", info.description, info.name);
}

bool is_compute(const core::ProcessSample& p) { return p.type != core::ProcessType::Graphics; }

// Text identity of a GPU, as the labels of nvidia_smi_gpu_info (absent fields: no label).
std::string info_labels_of(const core::Snapshot& snap, const DeviceSnapshot& device, const std::string& uuid) {
  std::string l;
  add_label(l, "uuid", uuid);
  add_label(l, "index", std::to_string(device.index));
  for (auto [field, label] : {std::pair{FieldId::Name, "name"}, std::pair{FieldId::VbiosVersion, "vbios_version"},
                              std::pair{FieldId::PciBusId, "pci_bus_id"}, std::pair{FieldId::Serial, "serial"},
                              std::pair{FieldId::ComputeCap, "compute_cap"}}) {
    auto text = device.get(field).as_string();
    if (text) add_label(l, label, *text);
  }
  if (snap.driver_version) add_label(l, "driver_version", *snap.driver_version);
  if (snap.cuda_driver_version) {
    int v = *snap.cuda_driver_version;
    add_label(l, "cuda_version", fmt::format("{}.{}", v / 1000, (v % 1000) / 10));
  }
  if (auto sub = device.get(FieldId::PciSubDeviceId).as_uint()) {
    add_label(l, "pci_sub_device_id", fmt::format("0x{:08X}", *sub));
  }
  return l;
}

}  // namespace

std::string nvidia_smi_metric_name(const core::FieldInfo& info) {
  std::string name = "nvidia_smi_";
  for (char c : info.name) name += (c == '.' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  name += smi_unit_suffix(info.unit);
  return name;
}

std::string nvidia_smi_uuid(std::string_view uuid) {
  if (uuid.size() >= 4 && (uuid.substr(0, 4) == "GPU-" || uuid.substr(0, 4) == "gpu-")) uuid.remove_prefix(4);
  std::string out(uuid);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

const std::vector<NvidiaSmiMetric>& nvidia_smi_metrics() {
  static const std::vector<NvidiaSmiMetric> metrics = [] {
    std::vector<NvidiaSmiMetric> list;
    auto add = [&list](FieldId id, MetricType type, std::string_view name) {
      const core::FieldInfo& info = core::field_info(id);
      list.push_back(NvidiaSmiMetric{id, type, name.empty() ? nvidia_smi_metric_name(info) : std::string(name),
                                     smi_help(info)});
    };
#define GW_NVSMI(field_id, metric_type, name) add(FieldId::field_id, MetricType::metric_type, name);
#include "exporter/nvidia_smi_compat.def"
#undef GW_NVSMI
    return list;
  }();
  return metrics;
}

std::vector<core::FieldId> nvidia_smi_fields() {
  std::vector<FieldId> fields = {FieldId::Uuid,     FieldId::Name,       FieldId::VbiosVersion,  FieldId::PciBusId,
                                 FieldId::Serial,   FieldId::ComputeCap, FieldId::PciSubDeviceId};
  for (const auto& m : nvidia_smi_metrics()) fields.push_back(m.field);
  return fields;
}

void encode_nvidia_smi_compat(const live::LiveView& view, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  std::vector<std::string> labels;
  for (const auto& device : snap.devices) {
    std::string l;
    add_label(l, "uuid", nvidia_smi_uuid(label_text_of(device, FieldId::Uuid)));
    labels.push_back(std::move(l));
  }
  {
    Family info(out, "nvidia_smi_gpu_info", "gauge",
                "A metric with a constant '1' value labeled by gpu uuid, name, index, driver and vbios versions, "
                "pci bus id, serial, compute capability");
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      // nvidia_gpu_exporter's names are NVIDIA's: an AMD or Intel GPU has only gpuwatch's own series.
      if (!view.status[i].has_sample || snap.devices[i].vendor != core::Vendor::Nvidia) continue;
      const DeviceSnapshot& d = snap.devices[i];
      info.sample(info_labels_of(snap, d, nvidia_smi_uuid(label_text_of(d, FieldId::Uuid))), "1");
    }
  }
  Family(out, "nvidia_smi_last_collect_success", "gauge", "Whether the last collection succeeded (1) or not (0)")
      .sample("", view.collector_success ? "1" : "0");
  for (const auto& metric : nvidia_smi_metrics()) {
    Family family(out, metric.name, to_string(metric.type), metric.help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!view.status[i].up || snap.devices[i].vendor != core::Vendor::Nvidia) continue;
      auto v = snap.devices[i].get(metric.field).as_double();
      if (v) family.sample(labels[i], format_double(*v));
    }
  }
  encode_xid_nvidia_smi(view, labels, out);  // kept while a GPU is down: Xids come when sampling fails
  encode_mig_nvidia_smi(view, labels, out);  // MIG devices, their memory and (Hopper+) activity
  // Compute processes (graphics-only ones are not "compute apps" in nvidia-smi's sense).
  bool processes_ok = true;
  Family apps(out, "nvidia_smi_compute_apps", "gauge", "Number of processes with a compute context on the GPU.");
  for (std::size_t i = 0; i < snap.devices.size(); ++i) {
    if (!view.status[i].up || snap.devices[i].vendor != core::Vendor::Nvidia) continue;
    const DeviceSnapshot& d = snap.devices[i];
    if (d.processes_status != core::FieldStatus::Ok) {
      processes_ok = false;
      continue;
    }
    apps.sample(labels[i], std::to_string(std::count_if(d.processes.begin(), d.processes.end(), is_compute)));
  }
  Family(out, "nvidia_smi_compute_apps_last_collect_success", "gauge",
         "Whether the most recent per-process collection succeeded (1) or not (0)")
      .sample("", processes_ok ? "1" : "0");
  Family info(out, "nvidia_smi_compute_app_info", "gauge",
              "A metric with a constant '1' value labeled by the identity of a process with a compute context on a GPU.");
  Family memory(out, "nvidia_smi_compute_app_used_memory_bytes", "gauge", "GPU memory used by the process.");
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!view.status[i].up || snap.devices[i].processes_status != core::FieldStatus::Ok ||
          snap.devices[i].vendor != core::Vendor::Nvidia) {
        continue;
      }
      for (const auto& p : snap.devices[i].processes) {
        if (!is_compute(p)) continue;
        std::string l;
        add_label(l, "pid", std::to_string(p.pid));
        add_label(l, "process_name", p.name);
        l += ',';
        l += labels[i];
        if (pass == 0) info.sample(l, "1");
        else if (p.used_memory_bytes) memory.sample(l, std::to_string(*p.used_memory_bytes));
      }
    }
  }
}

}  // namespace gpuwatch::exporter
