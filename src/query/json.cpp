#include "query/json.hpp"

#include <chrono>

#include "core/field_format.hpp"

namespace gpuwatch::query {
namespace {

double seconds_since_epoch(std::chrono::system_clock::time_point t) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count()) / 1e6;
}

nlohmann::ordered_json device_json(const core::DeviceSnapshot& device, core::FieldId id) {
  return reading_to_json(core::field_info(id), device.get(id));
}

}  // namespace

nlohmann::ordered_json reading_to_json(const core::FieldInfo& info, const core::FieldReading& reading) {
  if (!reading.ok()) return nullptr;
  if (info.display == core::Display::ComputeMode || info.display == core::Display::GpuOperationMode ||
      info.display == core::Display::DriverModel || info.display == core::Display::RecoveryAction ||
      info.display == core::Display::FabricState)
    return core::format_value(info.display, *reading.value, false);
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, *reading.value);
}

std::vector<nlohmann::ordered_json> gpu_json_rows(const core::Snapshot& snapshot, const std::vector<core::FieldId>& fields) {
  std::vector<nlohmann::ordered_json> rows;
  for (const auto& device : snapshot.devices) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (auto f : fields) row[std::string(core::field_info(f).json_key)] = device_json(device, f);
    // issue 16: a GPU that did not answer within --timeout says so; its values are null, never zero.
    if (device.state == core::DeviceState::TimedOut) row["timed_out"] = true;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<nlohmann::ordered_json> app_json_rows(const core::Snapshot& snapshot, const std::vector<core::AppFieldId>& fields) {
  using core::AppFieldId;
  using core::FieldId;
  std::vector<nlohmann::ordered_json> rows;
  for (const auto& device : snapshot.devices) {
    for (const auto& p : device.processes) {
      if (p.type == core::ProcessType::Graphics) continue;
      nlohmann::ordered_json row = nlohmann::ordered_json::object();
      for (auto f : fields) {
        const auto& info = core::app_field_table()[static_cast<std::size_t>(f)];
        nlohmann::ordered_json& cell = row[std::string(info.json_key)];
        switch (f) {
          case AppFieldId::Timestamp: cell = seconds_since_epoch(snapshot.timestamp); break;
          case AppFieldId::GpuName: cell = device_json(device, FieldId::Name); break;
          case AppFieldId::GpuBusId: cell = device_json(device, FieldId::PciBusId); break;
          case AppFieldId::GpuSerial: cell = device_json(device, FieldId::Serial); break;
          case AppFieldId::GpuUuid: cell = device_json(device, FieldId::Uuid); break;
          case AppFieldId::Pid: cell = p.pid; break;
          case AppFieldId::ProcessName: cell = p.name.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.name); break;
          case AppFieldId::UsedGpuMemory:
            cell = p.used_memory_bytes ? nlohmann::ordered_json(*p.used_memory_bytes) : nlohmann::ordered_json(nullptr);
            break;
        }
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace gpuwatch::query
