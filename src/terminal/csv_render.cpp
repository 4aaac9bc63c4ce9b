#include "terminal/csv_render.hpp"

#include <fmt/format.h>

#include "core/sink_text.hpp"

namespace gpuwatch::terminal {
namespace {

constexpr const char* kSeparator = ", ";

std::string join(const std::vector<std::string>& cells) { return fmt::format("{}", fmt::join(cells, kSeparator)); }

const core::AppFieldInfo& app_info(core::AppFieldId id) {
  return core::app_field_table()[static_cast<std::size_t>(id)];
}

std::string device_cell(const core::Snapshot& snapshot, const core::DeviceSnapshot& device, core::FieldId field,
                        core::CsvStyle style) {
  const auto& info = core::field_info(field);
  // nvidia-smi's CSV has no quoting: a driver's name or error string shows its controls visibly.
  return core::csv_text(core::format_cell(info, device.get(field), snapshot, style));
}

}  // namespace

std::string gpu_csv_header(const std::vector<core::FieldId>& fields) {
  std::vector<std::string> names;
  for (auto f : fields) names.push_back(core::field_info(f).csv_header());
  return join(names);
}

std::vector<std::string> gpu_csv_rows(const core::Snapshot& snapshot, const std::vector<core::FieldId>& fields,
                                      core::CsvStyle style) {
  std::vector<std::string> rows;
  for (const auto& device : snapshot.devices) {
    std::vector<std::string> cells;
    for (auto f : fields) cells.push_back(device_cell(snapshot, device, f, style));
    rows.push_back(join(cells));
  }
  return rows;
}

std::string app_csv_header(const std::vector<core::AppFieldId>& fields) {
  std::vector<std::string> names;
  for (auto f : fields) names.push_back(app_info(f).csv_header());
  return join(names);
}

std::string app_cell(const core::Snapshot& snapshot, const core::DeviceSnapshot& device,
                     const core::ProcessSample& process, core::AppFieldId field, core::CsvStyle style) {
  using core::AppFieldId;
  using core::FieldId;
  switch (field) {
    case AppFieldId::Timestamp: return core::format_timestamp(snapshot.timestamp);
    case AppFieldId::GpuName: return device_cell(snapshot, device, FieldId::Name, style);
    case AppFieldId::GpuBusId: return device_cell(snapshot, device, FieldId::PciBusId, style);
    case AppFieldId::GpuSerial: return device_cell(snapshot, device, FieldId::Serial, style);
    case AppFieldId::GpuUuid: return device_cell(snapshot, device, FieldId::Uuid, style);
    case AppFieldId::Pid: return fmt::format("{}", process.pid);
    case AppFieldId::ProcessName: return process.name.empty() ? "[N/A]" : core::csv_text(process.name);
    case AppFieldId::UsedGpuMemory:
      if (!process.used_memory_bytes) return "[N/A]";
      return core::format_value(core::Display::MiB, core::FieldValue{*process.used_memory_bytes}, style.units);
  }
  return "[N/A]";
}

std::vector<std::string> app_csv_rows(const core::Snapshot& snapshot, const std::vector<core::AppFieldId>& fields,
                                      core::CsvStyle style) {
  std::vector<std::string> rows;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (process.type == core::ProcessType::Graphics) continue;  // compute apps only, as nvidia-smi
      std::vector<std::string> cells;
      for (auto f : fields) cells.push_back(app_cell(snapshot, device, process, f, style));
      rows.push_back(join(cells));
    }
  }
  return rows;
}

}  // namespace gpuwatch::terminal
