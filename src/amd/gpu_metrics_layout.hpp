#pragma once
// The amdgpu driver's `gpu_metrics` sysfs file: a binary table whose layout the kernel declares in
// drivers/gpu/drm/amd/include/kgd_pp_interface.h (struct metrics_table_header, gpu_metrics_v1_*).
// Declared here once, field for field, for the AMD backend (which reads it) and the simulator
// (which writes it). The kernel's structs are naturally aligned (no packing attribute); every
// field below sits at the kernel's offset, pinned by the static_asserts. Header-only.
//
// Units (kernel comments): temperatures °C; powers W; activities %; clocks MHz; energy_accumulator
// in 15.259 µJ (2^-16 J) units; pcie_link_speed in 0.1 GT/s; system_clock_counter ns;
// firmware_timestamp 10 ns. A field the ASIC does not fill reads 0xFFFF (0xFFFFFFFF...).
//
// The simulator writes format 1 content 3 (gpu_metrics_v1_3). v1_4 and v1_5 are MI300's.
#include <cstddef>
#include <cstdint>

namespace gpuwatch::amd::gpu_metrics {

struct MetricsTableHeader {
  std::uint16_t structure_size;  // bytes of the whole table, header included
  std::uint8_t format_revision;  // 1: dGPU tables (v1_x); 2: APU tables (v2_x)
  std::uint8_t content_revision;
};
static_assert(sizeof(MetricsTableHeader) == 4);

inline constexpr std::size_t kHbmInstances = 4;   // NUM_HBM_INSTANCES
inline constexpr std::size_t kXgmiLinks = 8;      // NUM_XGMI_LINKS
inline constexpr std::size_t kMaxGfxClocks = 8;   // MAX_GFX_CLKS
inline constexpr std::size_t kMaxClocks = 4;      // MAX_CLKS
inline constexpr std::size_t kVcnInstances = 4;   // NUM_VCN
inline constexpr std::size_t kJpegEngines = 32;   // NUM_JPEG_ENG

// A field the firmware does not report.
inline constexpr std::uint16_t kUnset16 = 0xFFFF;
inline constexpr std::uint32_t kUnset32 = 0xFFFFFFFF;
inline constexpr std::uint64_t kUnset64 = ~std::uint64_t{0};

// struct gpu_metrics_v1_3 (Navi2x/Navi3x dGPUs, MI200's Aldebaran writes 1_3 too).
struct GpuMetricsV1_3 {
  MetricsTableHeader common_header;
  // Temperature (°C)
  std::uint16_t temperature_edge;
  std::uint16_t temperature_hotspot;
  std::uint16_t temperature_mem;
  std::uint16_t temperature_vrgfx;
  std::uint16_t temperature_vrsoc;
  std::uint16_t temperature_vrmem;
  // Utilization (%)
  std::uint16_t average_gfx_activity;
  std::uint16_t average_umc_activity;  // memory controller
  std::uint16_t average_mm_activity;   // UVD or VCN
  // Power (W) / energy (15.259 µJ units)
  std::uint16_t average_socket_power;
  std::uint64_t energy_accumulator;
  // Driver attached timestamp (ns)
  std::uint64_t system_clock_counter;
  // Average clocks (MHz)
  std::uint16_t average_gfxclk_frequency;
  std::uint16_t average_socclk_frequency;
  std::uint16_t average_uclk_frequency;
  std::uint16_t average_vclk0_frequency;
  std::uint16_t average_dclk0_frequency;
  std::uint16_t average_vclk1_frequency;
  std::uint16_t average_dclk1_frequency;
  // Current clocks (MHz)
  std::uint16_t current_gfxclk;
  std::uint16_t current_socclk;
  std::uint16_t current_uclk;
  std::uint16_t current_vclk0;
  std::uint16_t current_dclk0;
  std::uint16_t current_vclk1;
  std::uint16_t current_dclk1;
  // Throttle status (ASIC dependent bits: use indep_throttle_status)
  std::uint32_t throttle_status;
  // Fan (RPM)
  std::uint16_t current_fan_speed;
  // PCIe link: lanes, 0.1 GT/s
  std::uint16_t pcie_link_width;
  std::uint16_t pcie_link_speed;
  std::uint16_t padding;
  std::uint32_t gfx_activity_acc;
  std::uint32_t mem_activity_acc;
  std::uint16_t temperature_hbm[kHbmInstances];
  // PMFW attached timestamp (10 ns)
  std::uint64_t firmware_timestamp;
  // Voltage (mV)
  std::uint16_t voltage_soc;
  std::uint16_t voltage_gfx;
  std::uint16_t voltage_mem;
  std::uint16_t padding1;
  // Throttle status, ASIC independent: bits kThrottler* below
  std::uint64_t indep_throttle_status;
};
static_assert(sizeof(GpuMetricsV1_3) == 120);
static_assert(offsetof(GpuMetricsV1_3, temperature_edge) == 4);
static_assert(offsetof(GpuMetricsV1_3, average_socket_power) == 22);
static_assert(offsetof(GpuMetricsV1_3, energy_accumulator) == 24);
static_assert(offsetof(GpuMetricsV1_3, system_clock_counter) == 32);
static_assert(offsetof(GpuMetricsV1_3, current_gfxclk) == 54);
static_assert(offsetof(GpuMetricsV1_3, throttle_status) == 68);
static_assert(offsetof(GpuMetricsV1_3, gfx_activity_acc) == 80);
static_assert(offsetof(GpuMetricsV1_3, temperature_hbm) == 88);
static_assert(offsetof(GpuMetricsV1_3, firmware_timestamp) == 96);
static_assert(offsetof(GpuMetricsV1_3, indep_throttle_status) == 112);

// struct gpu_metrics_v1_4 (MI300, early firmware).
struct GpuMetricsV1_4 {
  MetricsTableHeader common_header;
  std::uint16_t temperature_hotspot;  // °C
  std::uint16_t temperature_mem;
  std::uint16_t temperature_vrsoc;
  std::uint16_t curr_socket_power;  // W
  std::uint16_t average_gfx_activity;
  std::uint16_t average_umc_activity;
  std::uint16_t vcn_activity[kVcnInstances];
  std::uint64_t energy_accumulator;  // 15.259 µJ units
  std::uint64_t system_clock_counter;
  std::uint32_t throttle_status;
  std::uint32_t gfxclk_lock_status;
  std::uint16_t pcie_link_width;
  std::uint16_t pcie_link_speed;  // 0.1 GT/s
  std::uint16_t xgmi_link_width;
  std::uint16_t xgmi_link_speed;  // Gbps
  std::uint32_t gfx_activity_acc;
  std::uint32_t mem_activity_acc;
  std::uint64_t pcie_bandwidth_acc;   // GB/s
  std::uint64_t pcie_bandwidth_inst;  // GB/s
  std::uint64_t pcie_l0_to_recov_count_acc;
  std::uint64_t pcie_replay_count_acc;
  std::uint64_t pcie_replay_rover_count_acc;
  std::uint64_t xgmi_read_data_acc[kXgmiLinks];  // KiB
  std::uint64_t xgmi_write_data_acc[kXgmiLinks];
  std::uint64_t firmware_timestamp;
  std::uint16_t current_gfxclk[kMaxGfxClocks];  // MHz
  std::uint16_t current_socclk[kMaxClocks];
  std::uint16_t current_vclk0[kMaxClocks];
  std::uint16_t current_dclk0[kMaxClocks];
  std::uint16_t current_uclk;
  std::uint16_t padding;
};
static_assert(offsetof(GpuMetricsV1_4, energy_accumulator) == 24);
static_assert(offsetof(GpuMetricsV1_4, throttle_status) == 40);
static_assert(offsetof(GpuMetricsV1_4, xgmi_read_data_acc) == 104);
static_assert(offsetof(GpuMetricsV1_4, firmware_timestamp) == 232);
static_assert(offsetof(GpuMetricsV1_4, current_uclk) == 280);
static_assert(sizeof(GpuMetricsV1_4) == 288);

// struct gpu_metrics_v1_5 (MI300).
struct GpuMetricsV1_5 {
  MetricsTableHeader common_header;
  std::uint16_t temperature_hotspot;
  std::uint16_t temperature_mem;
  std::uint16_t temperature_vrsoc;
  std::uint16_t curr_socket_power;
  std::uint16_t average_gfx_activity;
  std::uint16_t average_umc_activity;
  std::uint16_t vcn_activity[kVcnInstances];
  std::uint16_t jpeg_activity[kJpegEngines];
  std::uint64_t energy_accumulator;
  std::uint64_t system_clock_counter;
  std::uint32_t throttle_status;
  std::uint32_t gfxclk_lock_status;
  std::uint16_t pcie_link_width;
  std::uint16_t pcie_link_speed;
  std::uint16_t xgmi_link_width;
  std::uint16_t xgmi_link_speed;
  std::uint32_t gfx_activity_acc;
  std::uint32_t mem_activity_acc;
  std::uint64_t pcie_bandwidth_acc;
  std::uint64_t pcie_bandwidth_inst;
  std::uint64_t pcie_l0_to_recov_count_acc;
  std::uint64_t pcie_replay_count_acc;
  std::uint64_t pcie_replay_rover_count_acc;
  std::uint32_t pcie_nak_sent_count_acc;
  std::uint32_t pcie_nak_rcvd_count_acc;
  std::uint64_t xgmi_read_data_acc[kXgmiLinks];
  std::uint64_t xgmi_write_data_acc[kXgmiLinks];
  std::uint64_t firmware_timestamp;
  std::uint16_t current_gfxclk[kMaxGfxClocks];
  std::uint16_t current_socclk[kMaxClocks];
  std::uint16_t current_vclk0[kMaxClocks];
  std::uint16_t current_dclk0[kMaxClocks];
  std::uint16_t current_uclk;
  std::uint16_t padding;
};
static_assert(offsetof(GpuMetricsV1_5, energy_accumulator) == 88);
static_assert(offsetof(GpuMetricsV1_5, throttle_status) == 104);
static_assert(offsetof(GpuMetricsV1_5, xgmi_read_data_acc) == 176);
static_assert(offsetof(GpuMetricsV1_5, current_uclk) == 352);
static_assert(sizeof(GpuMetricsV1_5) == 360);

// Bits of indep_throttle_status: the kernel's SMU_THROTTLER_*_BIT (drivers/gpu/drm/amd/pm/
// swsmu/inc/amdgpu_smu.h), the same on every ASIC (the driver translates each ASIC's own bits).
namespace throttler {
// Power
inline constexpr unsigned kPpt0 = 0;
inline constexpr unsigned kPpt1 = 1;
inline constexpr unsigned kPpt2 = 2;
inline constexpr unsigned kPpt3 = 3;
inline constexpr unsigned kSpl = 4;
inline constexpr unsigned kFppt = 5;
inline constexpr unsigned kSppt = 6;
inline constexpr unsigned kSpptApu = 7;
// Current
inline constexpr unsigned kTdcGfx = 16;
inline constexpr unsigned kTdcSoc = 17;
inline constexpr unsigned kTdcMem = 18;
inline constexpr unsigned kTdcVdd = 19;
inline constexpr unsigned kTdcCvip = 20;
inline constexpr unsigned kEdcCpu = 21;
inline constexpr unsigned kEdcGfx = 22;
inline constexpr unsigned kApcc = 23;
// Temperature
inline constexpr unsigned kTempGpu = 32;
inline constexpr unsigned kTempCore = 33;
inline constexpr unsigned kTempMem = 34;
inline constexpr unsigned kTempEdge = 35;
inline constexpr unsigned kTempHotspot = 36;
inline constexpr unsigned kTempSoc = 37;
inline constexpr unsigned kTempVrGfx = 38;
inline constexpr unsigned kTempVrSoc = 39;
inline constexpr unsigned kTempVrMem0 = 40;
inline constexpr unsigned kTempVrMem1 = 41;
inline constexpr unsigned kTempLiquid0 = 42;
inline constexpr unsigned kTempLiquid1 = 43;
inline constexpr unsigned kVrHot0 = 44;
inline constexpr unsigned kVrHot1 = 45;
inline constexpr unsigned kProchotCpu = 46;
inline constexpr unsigned kProchotGfx = 47;
// Other
inline constexpr unsigned kPpm = 56;
inline constexpr unsigned kFit = 57;

constexpr std::uint64_t bit(unsigned b) { return std::uint64_t{1} << b; }

// The groups the AMD backend maps onto NVML's clock event reasons:
// power limits (PPT/SPL/FPPT/SPPT) -> sw_power_cap;
inline constexpr std::uint64_t kPowerMask = 0xFFull;  // bits 0..7
// current limits (TDC/EDC/APCC) -> hw_slowdown;
inline constexpr std::uint64_t kCurrentMask = 0xFF0000ull;  // bits 16..23
// temperature limits -> sw_thermal_slowdown (firmware's own limits: edge, hotspot, mem, VR, liquid);
inline constexpr std::uint64_t kThermalMask = bit(kTempGpu) | bit(kTempCore) | bit(kTempMem) | bit(kTempEdge) |
                                              bit(kTempHotspot) | bit(kTempSoc) | bit(kTempVrGfx) | bit(kTempVrSoc) |
                                              bit(kTempVrMem0) | bit(kTempVrMem1) | bit(kTempLiquid0) |
                                              bit(kTempLiquid1);
// external hot signals (VR_HOT, PROCHOT) -> hw_thermal_slowdown.
inline constexpr std::uint64_t kHwThermalMask = bit(kVrHot0) | bit(kVrHot1) | bit(kProchotCpu) | bit(kProchotGfx);
}  // namespace throttler

}  // namespace gpuwatch::amd::gpu_metrics
