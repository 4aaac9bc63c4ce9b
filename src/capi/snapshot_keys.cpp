#include "capi/snapshot_keys.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "host_signals/host_fields.hpp"

namespace gpuwatch::capi {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

using core::FieldId;
constexpr SnapshotKey kKeys[] = {
    {"util_percent", FieldId::UtilizationGpu, 100.0},
    {"memory_used_gib", FieldId::MemoryUsed, 1.0 / kGiB},
    {"memory_total_gib", FieldId::MemoryTotal, 1.0 / kGiB},
    {"power_w", FieldId::PowerDraw, 1.0},
    {"temperature_c", FieldId::TemperatureGpu, 1.0},
    {"sm_clock_mhz", FieldId::ClocksCurrentSm, 1e-6},
    // Clock event (throttle) reasons: the active bitmask as NVML gives it, then one 0/1 per reason.
    {"throttle_reasons_active", FieldId::ClocksEventReasonsActive, 1.0},
    {"throttle_sw_power_cap", FieldId::ClocksEventReasonsSwPowerCap, 1.0},
    {"throttle_hw_slowdown", FieldId::ClocksEventReasonsHwSlowdown, 1.0},
    {"throttle_hw_thermal", FieldId::ClocksEventReasonsHwThermalSlowdown, 1.0},
    {"throttle_sw_thermal", FieldId::ClocksEventReasonsSwThermalSlowdown, 1.0},
    {"throttle_hw_power_brake", FieldId::ClocksEventReasonsHwPowerBrakeSlowdown, 1.0},
    {"throttle_sync_boost", FieldId::ClocksEventReasonsSyncBoost, 1.0},
};

}  // namespace

std::span<const SnapshotKey> snapshot_keys() { return kKeys; }

std::vector<core::FieldId> sampled_fields() {
  std::vector<core::FieldId> fields = {FieldId::Index, FieldId::Uuid};
  for (const auto& key : kKeys) fields.push_back(key.field);
  return fields;
}

FlatEntries flatten(const core::Snapshot& snapshot, std::span<const unsigned> gpus) {
  FlatEntries out;
  for (unsigned index : gpus) {
    for (const auto& device : snapshot.devices) {
      if (device.index != index || device.state != core::DeviceState::Ok) continue;
      for (const auto& key : kKeys) {
        const auto value = device.get(key.field).as_double();
        if (value) out.emplace_back(fmt::format("gpu{}/{}", index, key.suffix), *value * key.scale);
      }
    }
  }
  return out;
}

FlatEntries flatten_host(const host_signals::HostSample& host) {
  FlatEntries out;
  for (const auto& field : host_signals::host_fields()) {
    if (const auto value = field.get(host)) out.emplace_back("host/" + std::string(field.key), *value);
  }
  if (!host.process_trees.empty()) {
    std::optional<double> cores;
    double processes = 0;
    for (const auto& tree : host.process_trees) {
      if (tree.cpu_cores) cores = cores.value_or(0.0) + *tree.cpu_cores;
      processes += static_cast<double>(tree.processes);
    }
    if (cores) out.emplace_back("host/job_cpu_cores", *cores);
    out.emplace_back("host/job_processes", processes);
  }
  return out;
}

std::string to_json(double unix_s, std::span<const unsigned> gpus, const FlatEntries& entries) {
  nlohmann::ordered_json doc;
  doc["time"] = unix_s;
  doc["gpus"] = std::vector<unsigned>(gpus.begin(), gpus.end());
  for (const auto& [key, value] : entries) doc[key] = value;
  return core::json_text(doc);  // a GPU name may not be UTF-8: U+FFFD, never a throw (issue 31)
}

}  // namespace gpuwatch::capi
