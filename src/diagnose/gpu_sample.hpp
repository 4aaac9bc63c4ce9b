#pragma once
// The numbers the checks read from one GPU of a snapshot, in base units. Absent stays
// std::nullopt (never zero): a check whose input is absent says nothing.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.hpp"

namespace gpuwatch::diagnose {

// NVML clock event (throttle) reason bits (NVML's clock event reasons).
inline constexpr std::uint64_t kReasonGpuIdle = 0x1;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermal = 0x20;
inline constexpr std::uint64_t kReasonHwThermal = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrake = 0x80;

// Violation counters (seconds throttled since the driver loaded), by throttle class.
enum class Counter : unsigned char { PowerCap, Thermal, Other };
inline constexpr std::size_t kCounterCount = 3;

struct ProcessView {
  std::uint32_t pid = 0;
  const std::string* name = nullptr;          // points into the snapshot (valid during observe)
  std::optional<double> used_bytes;
  bool graphics_only = false;
};

struct GpuSample {
  double t_s = 0;                             // seconds since the Unix epoch
  unsigned index = 0;
  core::Vendor vendor = core::Vendor::Nvidia;  // whose words the advice uses (issue 28)
  bool lost = false;                          // DeviceState::Lost
  bool readable = false;                      // DeviceState::Ok
  const std::string* uuid = nullptr;          // nullptr: not read
  std::optional<double> util, mem_util, sm_active;
  // The driver's sample buffer since the previous sample (the backend's profiling reader): the share of
  // its sub-second utilization samples that were idle, and the idle gaps that began.
  std::optional<double> buffer_idle_share, buffer_idle_gaps;
  std::optional<double> power_w, power_limit_w, power_default_limit_w;
  std::optional<double> sm_clock_hz, sm_clock_max_hz, temp_c, slowdown_c;
  std::optional<std::uint64_t> reasons;
  std::array<std::optional<double>, kCounterCount> throttled_s;  // summed per class; nullopt: none read
  std::optional<double> mem_used_bytes, mem_total_bytes;
  std::optional<double> ecc_uncorrected_volatile, ecc_uncorrected_aggregate;
  std::optional<double> remap_uncorrectable, remap_correctable;
  std::optional<bool> remap_pending, remap_failure;
  std::optional<double> recovery_action;
  std::optional<double> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<double> nvlink_bytes_per_s;     // NVLink data sent + received since the previous sample (issue 25)
  std::optional<bool> persistence_mode;         // nullopt: not read (a Windows driver has none)
  bool processes_read = false;                // processes_status Ok
  std::vector<ProcessView> processes;

  std::optional<double> power_ratio() const;  // power / limit
  std::optional<double> memory_used_ratio() const;
  std::optional<double> process_memory_sum() const;  // nullopt when any process memory is unknown
  bool held() const;  // a compute process is on the GPU
};

// Reads DEVICE (whose sample started at T_S) into OUT, reusing OUT's storage.
void extract(const core::DeviceSnapshot& device, double t_s, GpuSample& out);

double to_seconds(std::chrono::system_clock::time_point t);
std::chrono::system_clock::time_point from_seconds(double t_s);

}  // namespace gpuwatch::diagnose
