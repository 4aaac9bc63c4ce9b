#include "exporter/dcgm_compat.hpp"

#include <cmath>

#include "core/field_table.hpp"
#include "exporter/owner_labels.hpp"
#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {
namespace {

std::string dcgm_labels(const core::Snapshot& snap, const core::DeviceSnapshot& device, std::string_view hostname) {
  std::string labels;
  add_label(labels, "gpu", std::to_string(device.index));
  add_label(labels, "UUID", label_text_of(device, core::FieldId::Uuid));
  auto minor = device.get(core::FieldId::MinorNumber).as_int();
  add_label(labels, "device", minor ? "nvidia" + std::to_string(*minor) : std::string());
  add_label(labels, "modelName", label_text_of(device, core::FieldId::Name));
  add_label(labels, "Hostname", hostname);
  add_label(labels, "pci_bus_id", label_text_of(device, core::FieldId::PciBusId));
  if (snap.driver_version) add_label(labels, "DCGM_FI_DRIVER_VERSION", *snap.driver_version);
  return labels;
}

}  // namespace

const std::vector<DcgmMetric>& dcgm_metrics() {
  static const std::vector<DcgmMetric> metrics = {
#define GW_DCGM(name, field_id, metric_type, scale, help) \
  DcgmMetric{#name, core::FieldId::field_id, MetricType::metric_type, scale, help},
#include "exporter/dcgm_compat.def"
#undef GW_DCGM
  };
  return metrics;
}

void encode_dcgm_compat(const live::LiveView& view, const EncodeOptions& options, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  std::vector<std::string> labels;
  for (const auto& device : snap.devices) labels.push_back(dcgm_labels(snap, device, options.hostname));
  if (options.attribution_labels && view.gpu_owners.size() == labels.size()) {  // as dcgm-exporter's (issue 15)
    for (std::size_t i = 0; i < labels.size(); ++i) add_owner_labels(labels[i], view.gpu_owners[i]);
  }
  for (const auto& metric : dcgm_metrics()) {
    Family family(out, metric.name, to_string(metric.type), metric.help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      // dcgm-exporter's names are NVIDIA's: an AMD or Intel GPU has only gpuwatch's own series.
      if (!view.status[i].up || snap.devices[i].vendor != core::Vendor::Nvidia) continue;
      auto v = snap.devices[i].get(metric.field).as_double();
      if (!v) continue;
      double scaled = *v * metric.scale;
      // NVML's own units are integers (%, MiB, MHz, mJ): print them as dcgm-exporter does.
      if (metric.scale != 1 && std::fabs(scaled - std::nearbyint(scaled)) < 1e-6) scaled = std::nearbyint(scaled);
      family.sample(labels[i], format_double(scaled));
    }
  }
}

}  // namespace gpuwatch::exporter
