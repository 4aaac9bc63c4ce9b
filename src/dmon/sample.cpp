#include "dmon/sample.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "terminal/units.hpp"

namespace gpuwatch::dmon {
namespace {

using core::FieldId;

enum class Conversion { Watts, Whole, Percent, Mhz, Mib, MibPerSecond, PowerViolation, ThermalViolation };

struct ColumnSource {
  DmonColumn column;
  std::optional<FieldId> field;  // nullopt: no field for it: always "-"
  Conversion conversion;
};

// BAR1, PCIe replays and PCIe throughput read gpuwatch's extension fields (bar1.used,
// pcie.replay_counter, pcie.rx/tx_throughput: no nvidia-smi query name exists for them).
const std::vector<ColumnSource>& sources() {
  static const std::vector<ColumnSource> table = {
      {DmonColumn::PowerW, FieldId::PowerDraw, Conversion::Watts},
      {DmonColumn::GpuTempC, FieldId::TemperatureGpu, Conversion::Whole},
      {DmonColumn::MemTempC, FieldId::TemperatureMemory, Conversion::Whole},
      {DmonColumn::SmPct, FieldId::UtilizationGpu, Conversion::Percent},
      {DmonColumn::MemPct, FieldId::UtilizationMemory, Conversion::Percent},
      {DmonColumn::EncPct, FieldId::UtilizationEncoder, Conversion::Percent},
      {DmonColumn::DecPct, FieldId::UtilizationDecoder, Conversion::Percent},
      {DmonColumn::JpgPct, FieldId::UtilizationJpeg, Conversion::Percent},
      {DmonColumn::OfaPct, FieldId::UtilizationOfa, Conversion::Percent},
      {DmonColumn::MemClockMhz, FieldId::ClocksCurrentMemory, Conversion::Mhz},
      {DmonColumn::GpuClockMhz, FieldId::ClocksCurrentGraphics, Conversion::Mhz},
      {DmonColumn::PowerViolationPct, FieldId::ClocksEventReasonsCountersSwPowerCap, Conversion::PowerViolation},
      {DmonColumn::ThermalViolation, FieldId::ClocksEventReasonsCountersSwThermalSlowdown,
       Conversion::ThermalViolation},
      {DmonColumn::FbUsedMb, FieldId::MemoryUsed, Conversion::Mib},
      {DmonColumn::Bar1UsedMb, FieldId::Bar1Used, Conversion::Mib},
      {DmonColumn::CcProtectedMb, FieldId::ProtectedMemoryUsed, Conversion::Mib},
      {DmonColumn::SingleBitEcc, FieldId::EccErrorsCorrectedAggregateTotal, Conversion::Whole},
      {DmonColumn::DoubleBitEcc, FieldId::EccErrorsUncorrectedAggregateTotal, Conversion::Whole},
      {DmonColumn::PcieReplays, FieldId::PcieReplayCounter, Conversion::Whole},
      {DmonColumn::PcieRxMbps, FieldId::PcieRxThroughput, Conversion::MibPerSecond},
      {DmonColumn::PcieTxMbps, FieldId::PcieTxThroughput, Conversion::MibPerSecond},
  };
  return table;
}

const ColumnSource& source_of(DmonColumn column) {
  const auto& table = sources();
  return *std::find_if(table.begin(), table.end(), [&](const ColumnSource& s) { return s.column == column; });
}

std::optional<std::int64_t> convert(const core::FieldReading& reading, Conversion conversion) {
  switch (conversion) {
    case Conversion::Watts: return terminal::whole_watts(reading);
    case Conversion::Whole: return terminal::whole_number(reading);
    case Conversion::Percent: return terminal::whole_percent(reading);
    case Conversion::Mhz: return terminal::whole_mhz(reading);
    case Conversion::Mib: return terminal::whole_mib(reading);
    case Conversion::MibPerSecond: {  // bytes/s (NVML's KB/s * 1024) -> MB/s, truncated
      auto bytes_per_s = reading.as_double();
      if (!bytes_per_s || *bytes_per_s < 0) return std::nullopt;
      return static_cast<std::int64_t>(*bytes_per_s / (1024.0 * 1024.0));
    }
    case Conversion::PowerViolation:
    case Conversion::ThermalViolation: return std::nullopt;  // rates: see violation()
  }
  return std::nullopt;
}

// Seconds a cumulative counter grew between two samples of one device.
std::optional<double> growth(const core::DeviceSnapshot& now, const core::DeviceSnapshot& before, FieldId id) {
  auto a = before.get(id).as_double();
  auto b = now.get(id).as_double();
  if (!a || !b || *b < *a) return std::nullopt;  // absent, or the counter was reset
  return *b - *a;
}

std::optional<std::int64_t> violation(Conversion conversion, const core::DeviceSnapshot& now,
                                      const core::DeviceSnapshot* before, double interval_s) {
  if (before == nullptr || interval_s <= 0) return std::nullopt;
  if (conversion == Conversion::PowerViolation) {
    auto throttled = growth(now, *before, FieldId::ClocksEventReasonsCountersSwPowerCap);
    if (!throttled) return std::nullopt;
    return std::min<std::int64_t>(100, std::llround(*throttled / interval_s * 100.0));
  }
  auto sw = growth(now, *before, FieldId::ClocksEventReasonsCountersSwThermalSlowdown);
  auto hw = growth(now, *before, FieldId::ClocksEventReasonsCountersHwThermalSlowdown);
  if (!sw && !hw) return std::nullopt;
  return (sw.value_or(0) + hw.value_or(0)) > 0 ? 1 : 0;
}

const core::DeviceSnapshot* find_device(const core::Snapshot* snapshot, unsigned index) {
  if (snapshot == nullptr) return nullptr;
  for (const auto& device : snapshot->devices) {
    if (device.index == index && device.state == core::DeviceState::Ok) return &device;
  }
  return nullptr;
}

}  // namespace

bool has_violation_columns(const std::vector<DmonColumn>& columns) {
  return std::any_of(columns.begin(), columns.end(), [](DmonColumn c) {
    return c == DmonColumn::PowerViolationPct || c == DmonColumn::ThermalViolation;
  });
}

std::vector<core::FieldId> dmon_fields(const std::vector<DmonColumn>& columns) {
  std::vector<FieldId> fields;
  for (DmonColumn column : columns) {
    if (auto field = source_of(column).field) fields.push_back(*field);
    if (column == DmonColumn::ThermalViolation) fields.push_back(FieldId::ClocksEventReasonsCountersHwThermalSlowdown);
  }
  return fields;
}

std::vector<DmonRow> dmon_rows(const core::Snapshot& snapshot, const std::vector<DmonColumn>& columns,
                               const core::Snapshot* previous) {
  const double interval_s =
      previous ? std::chrono::duration<double>(snapshot.timestamp - previous->timestamp).count() : 0.0;
  std::vector<DmonRow> rows;
  for (const auto& device : snapshot.devices) {
    DmonRow row;
    row.gpu = device.index;
    const core::DeviceSnapshot* before = find_device(previous, device.index);
    for (DmonColumn column : columns) {
      const ColumnSource& source = source_of(column);
      if (device.state != core::DeviceState::Ok || !source.field) {
        row.values.emplace_back(std::nullopt);
      } else if (source.conversion == Conversion::PowerViolation ||
                 source.conversion == Conversion::ThermalViolation) {
        row.values.push_back(violation(source.conversion, device, before, interval_s));
      } else {
        row.values.push_back(convert(device.get(*source.field), source.conversion));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace gpuwatch::dmon
