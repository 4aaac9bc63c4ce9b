#pragma once
// The amdgpu driver's file formats, parsed (pure functions, no I/O): the text attributes of
// Documentation/gpu/amdgpu/thermal.rst and driver-misc.rst, the uevent of the PCI device, RAS
// counts, DRM fdinfo (Documentation/gpu/drm-usage-stats.rst) and the gpu_metrics table.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::amd {

// "1234\n" -> 1234 (decimal, optional sign); "0x1002" -> 4098 with HEX_PREFIX_OK.
std::optional<std::int64_t> parse_integer(std::string_view text);
std::optional<std::uint64_t> parse_hex(std::string_view text);  // "0x74a1", "74a1", "74A1"

// pp_dpm_sclk / pp_dpm_mclk: lines "N: <value>Mhz" with '*' on the current level.
struct DpmLevels {
  std::optional<std::uint64_t> current_mhz;  // the level marked '*'
  std::optional<std::uint64_t> max_mhz;      // the highest level
};
DpmLevels parse_dpm_levels(std::string_view text);

// current_link_speed / max_link_speed ("32.0 GT/s PCIe", "8 GT/s", "2.5 GT/s") -> PCIe
// generation 1..6; nullopt for "Unknown" or anything else.
std::optional<unsigned> pcie_generation_of(std::string_view text);

// ras/<block>_err_count: "ue: N\nce: M\n".
struct RasCounts {
  std::uint64_t uncorrectable = 0, correctable = 0;
};
std::optional<RasCounts> parse_ras_counts(std::string_view text);

// The PCI device's uevent: DRIVER=, PCI_ID=VVVV:DDDD, PCI_SLOT_NAME=dddd:bb:dd.f.
struct Uevent {
  std::string driver, slot;
  std::optional<std::uint32_t> vendor_id, device_id;
};
Uevent parse_uevent(std::string_view text);

// A PCI slot name ("0000:c1:00.0") -> its parts; nullopt when malformed.
struct PciAddress {
  std::uint32_t domain = 0, bus = 0, device = 0, function = 0;
};
std::optional<PciAddress> parse_pci_slot(std::string_view slot);
// As NVML writes a bus id: "00000000:C1:00.0".
std::string nvml_bus_id(const PciAddress& address);

// One DRM file's fdinfo (drm-usage-stats.rst), the keys the AMD backend uses.
struct DrmFdinfo {
  std::string_view driver, pdev;  // views into the parsed text
  std::optional<std::uint64_t> client_id;
  std::uint64_t gfx_ns = 0, compute_ns = 0;  // drm-engine-gfx / drm-engine-compute
  std::optional<std::uint64_t> vram_bytes, gtt_bytes;  // drm-memory-vram / -gtt
};
DrmFdinfo parse_drm_fdinfo(std::string_view text);

// What the AMD backend takes from a gpu_metrics table (gpu_metrics_layout.hpp), in base units;
// a field the table lacks (another version) or the firmware left unset (0xFFFF...) is absent.
struct GpuMetricsReading {
  unsigned format = 0, content = 0;
  std::optional<std::uint64_t> indep_throttle_status;
  std::optional<double> hotspot_c, mem_c, socket_power_w, energy_j;
  std::optional<std::uint64_t> gfxclk_mhz;
};
// Nullopt when the header is short or inconsistent (structure_size beyond the bytes read).
std::optional<GpuMetricsReading> decode_gpu_metrics(const void* data, std::size_t size);

// NVML's clock event reason bits (clocks_event_reasons.*) for an indep_throttle_status.
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4, kReasonHwSlowdown = 0x8, kReasonSwThermal = 0x20,
                               kReasonHwThermal = 0x40;
// The reasons the mapping can report at all (clocks_event_reasons.supported).
inline constexpr std::uint64_t kReasonsSupported = kReasonSwPowerCap | kReasonHwSlowdown | kReasonSwThermal | kReasonHwThermal;
std::uint64_t clock_event_reasons_of(std::uint64_t indep_throttle_status);

}  // namespace gpuwatch::amd
