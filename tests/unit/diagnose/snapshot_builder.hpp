#pragma once
// Test support: hand-made snapshots of one GPU, for the engine's unit tests.
#include <chrono>
#include <optional>

#include "core/snapshot.hpp"
#include "sim_feed.hpp"

namespace gpuwatch::diagnose::testing {

struct GpuValues {
  std::optional<double> util, mem_util, power_w, limit_w = 700.0, used_bytes, total_bytes = 80.0 * (1ull << 30);
  std::optional<double> process_bytes;  // one "python" process with this memory (nullopt: no process)
  std::optional<std::uint64_t> reasons;
  std::optional<double> sm_hz, max_sm_hz;
};

inline core::Snapshot make_snapshot(double t, const GpuValues& v, unsigned index = 0) {
  static const std::string kName = "python";
  core::Snapshot s;
  s.timestamp = at_s(t);
  core::DeviceSnapshot d;
  d.index = index;
  auto set = [&](core::FieldId id, const std::optional<double>& x) {
    if (x) d.get(id) = core::FieldReading::of(*x);
    else d.get(id) = core::FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  };
  set(core::FieldId::UtilizationGpu, v.util);
  set(core::FieldId::UtilizationMemory, v.mem_util);
  set(core::FieldId::PowerDraw, v.power_w);
  set(core::FieldId::EnforcedPowerLimit, v.limit_w);
  set(core::FieldId::MemoryUsed, v.used_bytes);
  set(core::FieldId::MemoryTotal, v.total_bytes);
  set(core::FieldId::ClocksCurrentSm, v.sm_hz);
  set(core::FieldId::ClocksMaxSm, v.max_sm_hz);
  if (v.reasons) d.get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(*v.reasons);
  d.get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-test-") + std::to_string(index));
  d.processes_status = core::FieldStatus::Ok;
  if (v.process_bytes) {
    core::ProcessSample p;
    p.pid = 100 + index;
    p.name = kName;
    p.used_memory_bytes = static_cast<std::uint64_t>(*v.process_bytes);
    d.processes.push_back(p);
  }
  s.devices.push_back(std::move(d));
  s.device_count = 1;
  return s;
}

}  // namespace gpuwatch::diagnose::testing
