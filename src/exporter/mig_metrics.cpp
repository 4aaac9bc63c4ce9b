#include "exporter/mig_metrics.hpp"

#include <cstdint>
#include <optional>
#include <set>

#include "core/field_table.hpp"
#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {
namespace {

using core::DeviceSnapshot;
using core::FieldId;

struct ActivityMetric {
  FieldId field;
  std::string name, help;
};

// The names one family gives the MIG series.
struct MigNames {
  std::string info, info_help, prefix;  // prefix: "gpuwatch_mig_" / "nvidia_smi_mig_"
  std::vector<ActivityMetric> activity;
  std::string pcie_tx, pcie_rx;
};

std::string instance_labels(const std::string& gpu_labels, std::uint32_t gpu_instance_id) {
  std::string l = gpu_labels;
  add_label(l, "gpu_instance_id", std::to_string(gpu_instance_id));
  return l;
}

const core::MigDeviceSample* first_of_instance(const DeviceSnapshot& d, std::uint32_t gi) {
  for (const auto& m : d.mig_devices)
    if (m.gpu_instance_id == gi) return &m;
  return nullptr;
}

// GPU instance ids of D in the order their first MIG device appears.
std::vector<std::uint32_t> instance_ids(const DeviceSnapshot& d) {
  std::vector<std::uint32_t> ids;
  std::set<std::uint32_t> seen;
  for (const auto& m : d.mig_devices)
    if (seen.insert(m.gpu_instance_id).second) ids.push_back(m.gpu_instance_id);
  return ids;
}

std::optional<double> ratio_of(const core::GpuInstanceActivity& a, FieldId field) {
  for (const auto& [f, v] : a.ratios)
    if (f == field) return v;
  return std::nullopt;
}

void encode_mig(const live::LiveView& view, const std::vector<std::string>& labels, const MigNames& names, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  auto up = [&](std::size_t i) { return view.status[i].up && !snap.devices[i].mig_devices.empty(); };
  {
    Family info(out, names.info, "gauge", names.info_help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!up(i)) continue;
      for (const auto& m : snap.devices[i].mig_devices) {
        std::string l = labels[i];
        add_label(l, "mig_uuid", m.uuid);
        add_label(l, "gpu_instance_id", std::to_string(m.gpu_instance_id));
        add_label(l, "compute_instance_id", std::to_string(m.compute_instance_id));
        add_label(l, "profile", m.profile);
        info.sample(l, "1");
      }
    }
  }
  using Member = std::optional<std::uint64_t> core::MigDeviceSample::*;
  for (auto [what, member] : {std::pair<const char*, Member>{"total", &core::MigDeviceSample::memory_total_bytes},
                              {"used", &core::MigDeviceSample::memory_used_bytes},
                              {"free", &core::MigDeviceSample::memory_free_bytes},
                              {"reserved", &core::MigDeviceSample::memory_reserved_bytes}}) {
    std::string name = names.prefix + "memory_" + what + "_bytes";
    std::string help = std::string("MIG GPU instance memory ") + what + ", bytes (shared by its compute instances)";
    Family family(out, name, "gauge", help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!up(i)) continue;
      for (std::uint32_t gi : instance_ids(snap.devices[i])) {
        const auto* m = first_of_instance(snap.devices[i], gi);
        if (m && (m->*member)) family.sample(instance_labels(labels[i], gi), std::to_string(*(m->*member)));
      }
    }
  }
  for (const auto& metric : names.activity) {
    Family family(out, metric.name, "gauge", metric.help);
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!up(i)) continue;
      for (const auto& a : snap.devices[i].gpu_instance_activity)
        if (auto v = ratio_of(a, metric.field)) family.sample(instance_labels(labels[i], a.gpu_instance_id), format_double(*v));
    }
  }
  for (bool tx : {true, false}) {
    Family family(out, tx ? names.pcie_tx : names.pcie_rx, "gauge",
                  tx ? "MIG GPU instance PCIe transmit throughput, bytes per second (NVML GPM)"
                     : "MIG GPU instance PCIe receive throughput, bytes per second (NVML GPM)");
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
      if (!up(i)) continue;
      for (const auto& a : snap.devices[i].gpu_instance_activity) {
        const auto& v = tx ? a.pcie_tx_bytes_per_s : a.pcie_rx_bytes_per_s;
        if (v) family.sample(instance_labels(labels[i], a.gpu_instance_id), format_double(*v));
      }
    }
  }
}

std::string activity_help(FieldId field) {
  const core::FieldInfo& info = core::field_info(field);
  std::string_view d = info.description;
  constexpr std::string_view kExt = "gpuwatch extension: ";
  if (d.substr(0, kExt.size()) == kExt) d.remove_prefix(kExt.size());
  return "MIG GPU instance: " + std::string(d) + ", over the window since the previous sample";
}

const MigNames& native_names() {
  static const MigNames names = [] {
    MigNames n{"gpuwatch_mig_info",
               "A MIG device of a GPU in MIG mode, always 1: its uuid, GPU and compute instance ids and profile",
               "gpuwatch_mig_", {}, "gpuwatch_mig_pcie_tx_bytes_per_second", "gpuwatch_mig_pcie_rx_bytes_per_second"};
    for (const auto& f : core::field_table())
      if (f.source == core::Source::Gpm) n.activity.push_back({f.id, "gpuwatch_mig_" + std::string(f.json_key), activity_help(f.id)});
    return n;
  }();
  return names;
}

const MigNames& nvidia_smi_names() {
  static const MigNames names = [] {
    MigNames n{"nvidia_smi_mig_info",
               "A metric with a constant '1' value labeled by the identity of a MIG device (parent GPU uuid, MIG uuid, "
               "GPU and compute instance ids, profile)",
               "nvidia_smi_mig_", {}, "nvidia_smi_mig_pcie_throughput_tx_bytes_per_second",
               "nvidia_smi_mig_pcie_throughput_rx_bytes_per_second"};
    for (auto [field, name] : {std::pair{FieldId::GpmGraphicsActive, "nvidia_smi_mig_graphics_activity_ratio"},
                               std::pair{FieldId::GpmSmActive, "nvidia_smi_mig_sm_activity_ratio"},
                               std::pair{FieldId::GpmSmOccupancy, "nvidia_smi_mig_sm_occupancy_ratio"},
                               std::pair{FieldId::GpmTensorActive, "nvidia_smi_mig_tensor_activity_ratio"}})
      n.activity.push_back({field, name, activity_help(field)});
    return n;
  }();
  return names;
}

}  // namespace

void encode_mig_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  encode_mig(view, labels, native_names(), out);
}

void encode_mig_nvidia_smi(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  encode_mig(view, labels, nvidia_smi_names(), out);
}

}  // namespace gpuwatch::exporter
