#pragma once
// THE table of fields: the single source of truth for query names (and aliases),
// CSV headers, units, display formats, JSON keys, the read group (Source) that reads
// each field and the one-line help text. Rows live in core/field_list.def. Docs
// (docs/fields.md, `gpuwatch query --help-query-gpu`) are generated from it.
// Later columns (Prometheus metric name, SQLite column) are added to FieldInfo.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"

namespace gpuwatch::core {

// How nvidia-smi displays a field (and how JSON/tables convert it back).
enum class Display : std::uint8_t {
  Text,             // string as is
  Integer,          // plain integer
  Celsius,          // integer, no unit suffix (nvidia-smi prints "temperature.gpu" bare)
  MiB,              // bytes -> "81559 MiB"
  MHz,              // hertz -> "1980 MHz"
  Watts,            // watts -> "631.95 W"
  Percent,          // ratio -> "100 %"
  Percent2,         // ratio -> "100.00 %"
  Microseconds,     // seconds -> "15814595384 us"
  Milliseconds,     // seconds -> "12 ms"
  Seconds,          // seconds -> "12 seconds"
  WattsPerSecond,   // "12.00 W/s"
  Joules,           // joules -> "123.456 J" (gpuwatch extension)
  KBps,             // bytes/s -> "1234 KB/s" (gpuwatch extension; NVML's KB = 1024 bytes)
  EnabledDisabled,  // bool
  ActiveNotActive,  // bool
  YesNo,            // bool
  Hex64,            // "0x%016llX"
  Hex32,            // "0x%08X"
  Hex16,            // "0x%04X"
  Hex8,             // "0x%02X"
  HexShort,         // "0x%X"
  PState,           // integer -> "P0"
  ComputeMode,      // integer -> "Default" / "Exclusive_Thread" / "Prohibited" / "Exclusive_Process"
  GpuOperationMode, // integer -> "All On" / "Compute" / "Low Double Precision"
  DriverModel,      // integer -> "WDDM" / "TCC" / "MCDM"
  Timestamp,        // seconds since the Unix epoch -> "YYYY/MM/DD HH:MM:SS.mmm" (local time)
  RecoveryAction,   // integer -> "None" / "GPU Reset" / "Node Reboot" / "Drain P2P" / "Drain and Reset"
  FabricState,      // integer -> "Not Supported" / "Not Started" / "In Progress" / "Completed"
};

// The text nvidia-smi prints for NOT_SUPPORTED: "[N/A]" for most fields, a bare
// "N/A" for a few (temperature.memory, fabric.*).
enum class NaText : std::uint8_t { Bracketed, Plain };

// Which read group reads a field. The sampler asks the device backend for each needed
// source once per device (backend::DeviceBackend::read_source; NVIDIA's in
// src/nvml/field_readers.cpp). `arg` in the table is the
// call's argument (clock type, policy, ECC location...), its meaning per source.
enum class Source : std::uint8_t {
  None,                 // not read from the driver (not claimed): always "[N/A]"
  System,               // timestamp, driver version, device count
  Name, Serial, Uuid, PciInfo, Index, MinorNumber,
  PcieCurrGen, PcieMaxGen, PcieGpuMaxGen, PcieCurrWidth, PcieMaxWidth,
  DisplayMode, DisplayActive, PersistenceMode, AccountingMode, AccountingBufferSize,
  VbiosVersion, InforomImage, InforomVersion,
  FanSpeed, PerformanceState, ClocksEventReasons, ViolationStatus,
  MemoryInfo, ComputeMode, CudaComputeCapability,
  UtilizationRates, EncoderUtilization, DecoderUtilization, JpgUtilization, OfaUtilization, EncoderStats,
  EccMode, TotalEccErrors, MemoryErrorCounter,
  RetiredPages, RetiredPagesPending, RemappedRows, RowRemapperHistogram,
  Temperature, FieldValues,
  PowerUsage, PowerLimit, EnforcedPowerLimit, PowerDefaultLimit, PowerLimitConstraints,
  ClockInfo, ApplicationsClock, DefaultApplicationsClock, MaxClockInfo,
  MigMode,
  TemperatureThreshold, TotalEnergy, PcieThroughput, PcieReplayCounter, Brand, Architecture, NumGpuCores,
  BoardPartNumber, Bar1Memory, NumFans, PowerManagementMode, GpuOperationMode, DriverModel,
  GpuFabricInfo,        // NVLink fabric registration (arg: 0 state, 1 status, 2 cliqueId, 3 clusterUuid)
  Gpm,                  // GPM profiling metrics (arg: the vendor's metric id): need two samples, so they are
                        // read by the backend's profiling reader (which keeps the previous one), not by a one-shot sample
  SampleBuffer,         // the driver's utilization sample buffer summarised over the interval since the
                        // previous reading (arg: 0 idle share, 1 idle gaps): read by the backend's
                        // profiling reader in sampling loops, never by a one-shot sample
  NvlinkThroughput,     // NVLink data counters (arg: 0 transmitted, 1 received) as a rate since the previous
                        // read of the same GPU: the backend keeps the previous counters (nvml/nvlink_rates.hpp)
};
inline constexpr std::size_t kSourceCount = static_cast<std::size_t>(Source::NvlinkThroughput) + 1;

struct FieldInfo {
  FieldId id;
  std::string_view name;         // canonical nvidia-smi query name, e.g. "memory.used"
  std::string_view aliases;      // other accepted names, '|' separated ("" if none)
  Unit unit;                     // base unit of the value in the core
  Display display;               // nvidia-smi display format
  NaText na;                     // text for NOT_SUPPORTED
  std::string_view json_key;     // snake_case with unit suffix, e.g. "memory_used_bytes"
  Source source;                 // read group
  int arg;                       // source argument (see Source)
  bool claimed;                  // true: the value really comes from the driver; must match nvidia-smi
  std::string_view description;  // one line, ours

  // "memory.used [MiB]" (the name plus the display unit, as nvidia-smi's CSV header)
  std::string csv_header() const;
  std::string_view unit_suffix() const;  // "MiB", "W", "%", ... or "" (display unit)
  std::vector<std::string_view> alias_list() const;
};

std::span<const FieldInfo> field_table();
const FieldInfo& field_info(FieldId id);
// Looks up a query name or alias (exact, as nvidia-smi; also case-insensitive fallback).
std::optional<FieldId> find_field(std::string_view query_name);

// Fields of --query-compute-apps (one row per process).
enum class AppFieldId : std::uint8_t { Timestamp, GpuName, GpuBusId, GpuSerial, GpuUuid, Pid, ProcessName, UsedGpuMemory };
struct AppFieldInfo {
  AppFieldId id;
  std::string_view name;
  std::string_view aliases;
  Display display;
  std::string_view json_key;
  std::string_view description;
  std::string csv_header() const;
  std::vector<std::string_view> alias_list() const;
};
std::span<const AppFieldInfo> app_field_table();
std::optional<AppFieldId> find_app_field(std::string_view query_name);

}  // namespace gpuwatch::core
