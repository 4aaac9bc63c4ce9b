#pragma once
// A hand-built three-GPU snapshot for the status renderer tests: GPU 0 is a busy
// H100 with one process (SM clock, PCIe, per-process GPU/CPU/RSS known; no fan), GPU 1
// an H100 in MIG mode (utilization unsupported) and no power, clock or PCIe reading,
// GPU 2 is lost.
#include <chrono>

#include "status/view.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::status::testing {

inline core::Snapshot status_snapshot() {
  using core::FieldId;
  using core::FieldReading;
  using core::FieldStatus;
  core::Snapshot s;
  s.timestamp = std::chrono::system_clock::time_point(std::chrono::seconds(1764426391));
  s.driver_version = "590.48.01";
  s.cuda_driver_version = 13010;
  s.device_count = 3;
  s.error_strings[15] = "GPU is lost";
  s.error_strings[3] = "Not Supported";

  core::DeviceSnapshot busy;
  busy.index = 0;
  busy.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
  busy.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-11111111-2222-3333-4444-555555555555"));
  busy.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{63});
  busy.get(FieldId::TemperatureMemory) = FieldReading::of(std::int64_t{57});
  busy.get(FieldId::UtilizationGpu) = FieldReading::of(1.0);
  busy.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{81559} * 1024 * 1024);
  busy.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{40123} * 1024 * 1024);
  busy.get(FieldId::PowerDraw) = FieldReading::of(631.95);
  busy.get(FieldId::EnforcedPowerLimit) = FieldReading::of(700.0);
  busy.get(FieldId::FanSpeed) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  busy.get(FieldId::TemperatureGpuSlowdown) = FieldReading::of(std::int64_t{87});
  busy.get(FieldId::ClocksCurrentSm) = FieldReading::of(1755e6);
  busy.get(FieldId::ClocksMaxSm) = FieldReading::of(1980e6);
  busy.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(std::uint64_t{0});
  busy.get(FieldId::PcieRxThroughput) = FieldReading::of(12.5 * 1024 * 1024);
  busy.get(FieldId::PcieTxThroughput) = FieldReading::of(3.0 * 1024 * 1024);
  busy.processes_status = FieldStatus::Ok;
  core::ProcessSample p;
  p.pid = 4242;
  p.name = "gpu_burn";
  p.used_memory_bytes = std::uint64_t{40000} * 1024 * 1024;
  p.sm_ratio = 0.97;
  busy.processes.push_back(p);

  core::DeviceSnapshot mig;
  mig.index = 1;
  mig.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
  mig.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{42});
  mig.get(FieldId::UtilizationGpu) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  mig.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{81559} * 1024 * 1024);
  mig.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{0});
  mig.get(FieldId::PowerDraw) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  mig.get(FieldId::EnforcedPowerLimit) = FieldReading::of(700.0);
  mig.processes_status = FieldStatus::Ok;

  core::DeviceSnapshot lost;
  lost.index = 2;
  lost.state = core::DeviceState::Lost;
  lost.error = {core::ErrorReason::GpuLost, 15};

  s.devices = {busy, mig, lost};
  return s;
}

inline StatusContext status_context() {
  StatusContext c;
  c.hostname = "node-7";
  c.local_time.tm_year = 2026 - 1900;
  c.local_time.tm_mon = 10;
  c.local_time.tm_mday = 29;
  c.local_time.tm_hour = 14;
  c.local_time.tm_min = 26;
  c.local_time.tm_sec = 31;
  host::ProcessInfo info;
  info.user = "alice";
  info.command_line = "/opt/gpu_burn -d 60";
  info.name = "gpu_burn";
  info.cpu_ratio = 1.02;
  info.rss_bytes = std::uint64_t{2048} * 1024 * 1024;
  c.processes[4242] = info;
  return c;
}

}  // namespace gpuwatch::status::testing
