#include "sim/engine/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "sim/engine/noise.hpp"

namespace gpuwatch::sim {
namespace {

// Figures: reference/nvml.md §8 (Q = seen in nvidia-smi -q dumps, P = product specs).
const std::vector<ModelSpec> kCatalog = {
    // id, name, dev, subsys, mem, reserved, power def/min/max/idle, gfx/mem/video max, gfx/mem idle,
    // temps shutdown/slowdown/gpumax/memmax, idle temp, pcie gen/width/idle gen, sms, cores, cc, arch, brand, vbios,
    // fan, ecc, hbm, geforce, mig, remap, retired, jpeg/ofa, bar1, part
    {"H100 SXM 80GB", "NVIDIA H100 80GB HBM3", 0x2330, 0x16C110DE, 81559, 479, 700, 200, 700, 72, 1980, 2619, 1545, 345,
     2619, 92, 89, 87, 95, 31, 5, 16, 5, 132, 16896, "9.0", "Hopper", "NVIDIA", "96.00.A5.00.01", false, true, true,
     false, true, true, false, true, 131072, "692-2G520-0200-000"},
    {"H200", "NVIDIA H200", 0x2335, 0x18BE10DE, 143771, 700, 700, 200, 700, 75, 1980, 3201, 1545, 345, 3201, 92, 89,
     87, 95, 30, 5, 16, 5, 132, 16896, "9.0", "Hopper", "NVIDIA", "96.00.A5.00.03", false, true, true, false, true, true,
     false, true, 262144, "692-2G520-0280-000"},
    {"A100 SXM 80GB", "NVIDIA A100-SXM4-80GB", 0x20B2, 0x146310DE, 81920, 834, 400, 100, 400, 60, 1410, 1593, 1290,
     210, 1593, 92, 89, 85, 95, 32, 4, 16, 4, 108, 6912, "8.0", "Ampere", "NVIDIA", "92.00.36.00.10", false, true, true,
     false, true, true, false, true, 131072, "692-2G506-0210-002"},
    {"A100 PCIe 40GB", "NVIDIA A100-PCIE-40GB", 0x20F1, 0x145F10DE, 40960, 620, 250, 150, 250, 35, 1410, 1215, 1290,
     210, 1215, 92, 89, 85, 95, 30, 4, 16, 4, 108, 6912, "8.0", "Ampere", "NVIDIA", "92.00.25.00.08", false, true, true,
     false, true, true, false, true, 65536, "900-21001-0000-000"},
    {"L4", "NVIDIA L4", 0x27B8, 0x16CA10DE, 23034, 556, 72, 40, 72, 16.5, 2040, 6251, 1770, 210, 405, 0, 0, 0, 0, 34, 4,
     16, 1, 58, 7424, "8.9", "Ada Lovelace", "NVIDIA", "95.04.29.00.06", false, true, false, false, false, true, false,
     true, 32768, "900-2G193-0000-001"},
    {"RTX 4090", "NVIDIA GeForce RTX 4090", 0x2684, 0x16F310DE, 24564, 354, 450, 150, 600, 28, 3105, 10501, 2415, 210,
     405, 0, 0, 0, 0, 36, 4, 16, 1, 128, 16384, "8.9", "Ada Lovelace", "GeForce", "95.02.18.80.87", true, false, false,
     true, false, true, false, true, 256, ""},
    {"RTX 3090", "NVIDIA GeForce RTX 3090", 0x2204, 0x147D10DE, 24576, 305, 350, 100, 350, 25, 2100, 9751, 1950, 210,
     405, 98, 95, 93, 0, 35, 4, 16, 1, 82, 10496, "8.6", "Ampere", "GeForce", "94.02.42.00.A9", true, false, false,
     true, false, false, false, false, 256, ""},
    {"T4", "Tesla T4", 0x1EB8, 0x12A210DE, 15360, 393, 70, 60, 70, 14, 1590, 5001, 1470, 300, 405, 96, 93, 85, 0, 33, 3,
     16, 1, 40, 2560, "7.5", "Turing", "NVIDIA", "90.04.38.00.03", false, true, false, false, false, false, true, false,
     256, "900-2G183-0000-001"},
    {"V100", "Tesla V100-SXM2-16GB", 0x1DB1, 0x121210DE, 16384, 240, 300, 150, 300, 43, 1530, 877, 1372, 135, 877, 90, 87,
     83, 85, 34, 3, 16, 3, 80, 5120, "7.0", "Volta", "Tesla", "88.00.4F.00.09", false, true, true, false, false, false,
     true, false, 16384, "900-2G503-0000-000"},
    // AMD and Intel boards (docs/simulator.md, "AMD and Intel GPUs (issue 28)", has the sources). For
    // them `reserved` is the driver's own VRAM, counted in memory.used (as amdgpu's
    // mem_info_vram_used does) with nothing reserved beside it; `sms` is the compute units / Xe cores,
    // `cores` the stream processors / shading units; `geforce` a consumer board.
    // MI250X: one GCD as the kernel shows it (a card of its own, 64 GB); the board's 500 W limit
    // is on each GCD's power1_cap.
    {"MI300X", "AMD Instinct MI300X", 0x74A1, 0x74A11002, 196592, 283, 750, 200, 750, 140, 2100, 1300, 0, 135, 900,
     110, 100, 95, 95, 40, 5, 16, 5, 304, 19456, "", "CDNA 3", "AMD Instinct", "113-M3000100-102", false, true, true,
     false, false, false, false, false, 0, "102-G30211-00", core::Vendor::Amd},
    {"MI250X", "AMD Instinct MI250X", 0x740C, 0x0B0C1002, 65520, 10, 500, 200, 560, 90, 1700, 1600, 0, 795, 1600,
     110, 100, 95, 95, 38, 4, 16, 4, 110, 7040, "", "CDNA 2", "AMD Instinct", "113-D65201-042", false, true, true,
     false, false, false, false, false, 0, "102-D65201-00", core::Vendor::Amd},
    {"RX 7900 XTX", "AMD Radeon RX 7900 XTX", 0x744C, 0x471E1002, 24560, 152, 355, 297, 402, 20, 2505, 1250, 0, 30,
     100, 110, 100, 0, 0, 36, 4, 16, 4, 96, 6144, "", "RDNA 3", "AMD Radeon", "113-D7020100-102", true, false, false,
     true, false, false, false, false, 0, "", core::Vendor::Amd},
    {"Max 1550", "Intel(R) Data Center GPU Max 1550", 0x0BD5, 0x00008086, 131072, 512, 600, 300, 600, 120, 1600, 1600,
     0, 300, 1600, 105, 95, 0, 85, 35, 5, 16, 5, 128, 16384, "", "Xe-HPC", "Intel Data Center GPU Max", "", false, true,
     true, false, false, false, false, false, 0, "", core::Vendor::Intel},
    {"Arc A770", "Intel(R) Arc(TM) A770 Graphics", 0x56A0, 0x10208086, 16256, 300, 225, 190, 252, 40, 2400, 2187, 0, 300,
     2187, 105, 100, 0, 0, 38, 4, 16, 4, 32, 4096, "", "Xe-HPG", "Intel Arc", "", true, false, false, true, false,
     false, false, false, 0, "", core::Vendor::Intel},
};

std::string lower_alnum(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void put(ValueMap& v, Key key, const std::string& text) { v[key_index(key)] = parse_value(text); }
void put(ValueMap& v, Key key, double number) { v[key_index(key)] = parse_value(fmt::format("{}", number)); }
void na(ValueMap& v, Key key) { v[key_index(key)] = Value::make_error(3); }

// Bus numbers of a DGX H100-like 8-GPU board, then consecutive ones.
unsigned default_bus(unsigned index) {
  static constexpr unsigned kBuses[] = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};
  return index < 8 ? kBuses[index] : 0xE0 + index;
}

void common_identity(ValueMap& v, unsigned index, std::uint64_t seed) {
  std::uint64_t h = hash_mix(seed, index, 0x55u);
  std::uint64_t h2 = hash_mix(seed, index, 0x77u);
  put(v, Key::Uuid, fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", h >> 32, (h >> 16) & 0xFFFF, h & 0xFFFF,
                                h2 >> 48, h2 & 0xFFFFFFFFFFFFull));
  unsigned bus = default_bus(index);
  put(v, Key::PciBusId, fmt::format("00000000:{:02X}:00.0", bus));
  put(v, Key::PciDomain, "0x0000");
  put(v, Key::PciBus, fmt::format("0x{:02X}", bus));
  put(v, Key::PciDevice, "0x00");
  put(v, Key::PciBaseClass, "0x3");
  put(v, Key::PciSubClass, "0x2");
  put(v, Key::Index, index);
  put(v, Key::MinorNumber, index);
  put(v, Key::DisplayMode, "Disabled");
  put(v, Key::DisplayActive, "Disabled");
  put(v, Key::PersistenceMode, "Enabled");
  put(v, Key::AccountingMode, "Disabled");
  put(v, Key::AccountingBufferSize, 4000);
  na(v, Key::DriverModelCurrent);
  na(v, Key::DriverModelPending);
  na(v, Key::GomCurrent);
  na(v, Key::GomPending);
  put(v, Key::Pstate, "P0");
  put(v, Key::ClocksEventReasonsSupported, "0x00000000000001FF");
  put(v, Key::ClocksEventReasonsActive, "0x0000000000000001");
  for (Key k : {Key::ClocksEventReasonsCountersSwPowerCap, Key::ClocksEventReasonsCountersSyncBoost,
                Key::ClocksEventReasonsCountersSwThermalSlowdown, Key::ClocksEventReasonsCountersHwThermalSlowdown,
                Key::ClocksEventReasonsCountersHwPowerBrakeSlowdown})
    put(v, k, 0);
  put(v, Key::ComputeMode, "Default");
  for (Key k : {Key::UtilizationGpu, Key::UtilizationMemory, Key::UtilizationEncoder, Key::UtilizationDecoder,
                Key::EncoderStatsSessionCount, Key::EncoderStatsAverageFps, Key::EncoderStatsAverageLatency})
    put(v, k, 0);
  put(v, Key::PowerManagement, "Enabled");
  put(v, Key::PcieTxThroughput, 0);
  put(v, Key::PcieRxThroughput, 0);
  put(v, Key::PcieReplayCounter, 0);
  put(v, Key::EnergyTotal, 0);
  put(v, Key::Bar1Used, 2);
}

void ecc_counters(ValueMap& v, bool ecc) {
  for (std::size_t i = 0; i < kKeyCount; ++i) {
    std::string_view name = key_info(static_cast<Key>(i)).name;
    if (name.rfind("ecc.errors.", 0) != 0) continue;
    bool located_na = name.find(".register_file") != std::string_view::npos ||
                      name.find(".l1_cache") != std::string_view::npos ||
                      name.find(".l2_cache") != std::string_view::npos ||
                      name.find(".texture_memory") != std::string_view::npos ||
                      name.find(".cbu") != std::string_view::npos;
    if (!ecc || located_na) v[i] = Value::make_error(3);
    else if (name.find("thresholdExceeded") != std::string_view::npos) v[i] = parse_value("No");
    else v[i] = parse_value("0");
  }
}

// An AMD or Intel board: what NVIDIA's driver alone has is [N/A]; the identity is the vendor's.
void other_vendor_defaults(ValueMap& v, const ModelSpec& m, unsigned index, std::uint64_t seed) {
  const std::uint64_t h = hash_mix(seed, index, 0x55u);
  const std::uint64_t h2 = hash_mix(seed, index, 0x77u);
  if (m.vendor == core::Vendor::Amd) {
    put(v, Key::Uuid, fmt::format("AMD-{:016x}", h));  // amdgpu's unique_id (16 hex digits), as the contract reads it
  } else {
    // Level Zero's 16-byte device UUID, written like a UUID (zes_uuid_t; i915/xe sysfs have none).
    put(v, Key::Uuid, fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", h >> 32, (h >> 16) & 0xFFFF, h & 0xFFFF, h2 >> 48,
                                  h2 & 0xFFFFFFFFFFFFull));
  }
  // amdgpu's VRAM use counts the driver's own allocations; nothing is reserved beside it.
  put(v, Key::MemoryReserved, 0);
  put(v, Key::MemoryUsed, m.memory_reserved_mib);
  put(v, Key::MemoryFree, m.memory_total_mib - m.memory_reserved_mib);
  if (m.vbios.empty()) na(v, Key::VbiosVersion);
  for (Key k : {Key::ComputeCap, Key::InforomImg, Key::InforomOem, Key::InforomEcc, Key::InforomPwr, Key::Bar1Total,
                Key::Bar1Used, Key::ClocksApplicationsGraphics, Key::ClocksApplicationsMemory,
                Key::ClocksDefaultApplicationsGraphics, Key::ClocksDefaultApplicationsMemory, Key::ClocksCurrentVideo,
                Key::ClocksMaxVideo, Key::GpuRecoveryAction, Key::UtilizationEncoder, Key::UtilizationDecoder,
                Key::EncoderStatsSessionCount, Key::EncoderStatsAverageFps, Key::EncoderStatsAverageLatency,
                Key::AccountingMode, Key::AccountingBufferSize, Key::PersistenceMode, Key::ComputeMode,
                Key::ClocksEventReasonsCountersSyncBoost, Key::ClocksEventReasonsCountersHwPowerBrakeSlowdown})
    na(v, k);
  // Throttle reasons the vendors' interfaces map onto NVML's (gpu_metrics throttle_status, Level
  // Zero's zes_freq_throttle_reason_flags): idle, power cap, thermal.
  put(v, Key::ClocksEventReasonsSupported, "0x0000000000000065");
}

}  // namespace

const std::vector<ModelSpec>& model_catalog() { return kCatalog; }

unsigned pci_vendor_id(core::Vendor vendor) {
  switch (vendor) {
    case core::Vendor::Amd: return 0x1002;
    case core::Vendor::Intel: return 0x8086;
    case core::Vendor::Nvidia: break;
  }
  return 0x10DE;
}

double model_sample_period_s(const ModelSpec& model) { return model.geforce ? 1.0 : 1.0 / 6; }

const ModelSpec* find_model(std::string_view name) {
  std::string want = lower_alnum(name);
  for (const auto& m : kCatalog) {
    if (want == lower_alnum(m.id) || want == lower_alnum(m.nvml_name)) return &m;
  }
  struct Alias { std::string_view alias, id; };
  static constexpr Alias kAliases[] = {{"h100", "H100 SXM 80GB"}, {"h100sxm", "H100 SXM 80GB"},
                                       {"h200", "H200"}, {"a100", "A100 SXM 80GB"}, {"a10080gb", "A100 SXM 80GB"},
                                       {"a100sxm", "A100 SXM 80GB"}, {"a100pcie", "A100 PCIe 40GB"},
                                       {"a10040gb", "A100 PCIe 40GB"}, {"rtx4090", "RTX 4090"}, {"4090", "RTX 4090"},
                                       {"rtx3090", "RTX 3090"}, {"3090", "RTX 3090"}, {"teslat4", "T4"},
                                       {"v100", "V100"}, {"v100sxm2", "V100"}, {"teslav100", "V100"},
                                       {"mi300x", "MI300X"}, {"instinctmi300x", "MI300X"}, {"mi250x", "MI250X"},
                                       {"instinctmi250x", "MI250X"}, {"rx7900xtx", "RX 7900 XTX"},
                                       {"7900xtx", "RX 7900 XTX"}, {"radeonrx7900xtx", "RX 7900 XTX"},
                                       {"max1550", "Max 1550"}, {"gpumax1550", "Max 1550"},
                                       {"datacentergpumax1550", "Max 1550"}, {"a770", "Arc A770"},
                                       {"arca770", "Arc A770"}};
  for (const auto& a : kAliases)
    if (want == a.alias)
      for (const auto& m : kCatalog)
        if (m.id == a.id) return &m;
  return nullptr;
}

std::string catalog_names() {
  std::string out;
  for (const auto& m : kCatalog) out += (out.empty() ? "" : ", ") + std::string(m.id);
  return out;
}

ValueMap model_defaults(const ModelSpec& m, unsigned index, std::uint64_t seed) {
  ValueMap v;
  common_identity(v, index, seed);
  put(v, Key::Name, std::string(m.nvml_name));
  if (m.geforce) na(v, Key::Serial);
  else put(v, Key::Serial, fmt::format("{:013}", hash_mix(seed, index, 0x5E21u) % 10000000000000ull));
  put(v, Key::PciDeviceId, fmt::format("0x{:04X}{:04X}", m.device_id, pci_vendor_id(m.vendor)));
  put(v, Key::PciSubDeviceId, fmt::format("0x{:08X}", m.subsystem_id));
  put(v, Key::PcieLinkGenCurrent, m.pcie_gen_idle);
  put(v, Key::PcieLinkGenGpucurrent, m.pcie_gen_idle);
  put(v, Key::PcieLinkGenMax, m.pcie_gen_max);
  put(v, Key::PcieLinkGenGpumax, m.pcie_gen_max);
  put(v, Key::PcieLinkWidthCurrent, m.pcie_width_max);
  put(v, Key::PcieLinkWidthMax, m.pcie_width_max);
  put(v, Key::VbiosVersion, std::string(m.vbios));
  put(v, Key::InforomImg, m.geforce ? "G001.0000.03.03" : "G520.0200.00.05");
  put(v, Key::InforomOem, "2.1");
  if (m.ecc) put(v, Key::InforomEcc, "7.16"); else na(v, Key::InforomEcc);
  na(v, Key::InforomPwr);
  if (m.fan) { put(v, Key::FanSpeed, 30); put(v, Key::FanCount, 1); }
  else { na(v, Key::FanSpeed); put(v, Key::FanCount, 0); }
  put(v, Key::MemoryTotal, m.memory_total_mib);
  put(v, Key::MemoryReserved, m.memory_reserved_mib);
  put(v, Key::MemoryUsed, 1);
  put(v, Key::MemoryFree, m.memory_total_mib - m.memory_reserved_mib - 1);
  put(v, Key::ComputeCap, std::string(m.compute_cap));
  if (m.jpeg_ofa) { put(v, Key::UtilizationJpeg, 0); put(v, Key::UtilizationOfa, 0); }
  else { na(v, Key::UtilizationJpeg); na(v, Key::UtilizationOfa); }
  put(v, Key::EccModeCurrent, m.ecc ? "Enabled" : (m.geforce && m.remapped_rows ? "Disabled" : "[N/A]"));
  put(v, Key::EccModePending, m.ecc ? "Enabled" : (m.geforce && m.remapped_rows ? "Disabled" : "[N/A]"));
  ecc_counters(v, m.ecc);
  for (Key k : {Key::RetiredPagesSingleBitEccCount, Key::RetiredPagesDoubleBitCount}) {
    if (m.retired_pages) put(v, k, 0); else na(v, k);
  }
  if (m.retired_pages) put(v, Key::RetiredPagesPending, "No"); else na(v, Key::RetiredPagesPending);
  if (m.remapped_rows) {
    for (Key k : {Key::RemappedRowsCorrectable, Key::RemappedRowsUncorrectable, Key::RemappedRowsHistogramHigh,
                  Key::RemappedRowsHistogramPartial, Key::RemappedRowsHistogramLow, Key::RemappedRowsHistogramNone})
      put(v, k, 0);
    put(v, Key::RemappedRowsPending, "No");
    put(v, Key::RemappedRowsFailure, "No");
    put(v, Key::RemappedRowsHistogramMax, m.hbm ? (m.memory_total_mib > 100000 ? 3072 : 2560) : 192);
  } else {
    for (Key k : {Key::RemappedRowsCorrectable, Key::RemappedRowsUncorrectable, Key::RemappedRowsPending,
                  Key::RemappedRowsFailure, Key::RemappedRowsHistogramMax, Key::RemappedRowsHistogramHigh,
                  Key::RemappedRowsHistogramPartial, Key::RemappedRowsHistogramLow, Key::RemappedRowsHistogramNone})
      na(v, k);
  }
  put(v, Key::TemperatureGpu, m.temp_idle);
  if (m.hbm) put(v, Key::TemperatureMemory, m.temp_idle + 3); else na(v, Key::TemperatureMemory);
  auto temp = [&](Key k, double c) { if (c > 0) put(v, k, c); else na(v, k); };
  temp(Key::TemperatureGpuShutdown, m.temp_shutdown);
  temp(Key::TemperatureGpuSlowdown, m.temp_slowdown);
  temp(Key::TemperatureGpuMaxOperating, m.temp_gpu_max);
  temp(Key::TemperatureMemoryMaxOperating, m.temp_mem_max);
  auto watts = [](double w) { return fmt::format("{:.2f}", w); };
  put(v, Key::PowerDraw, watts(m.power_idle_w));
  put(v, Key::PowerDrawAverage, watts(m.power_idle_w));
  put(v, Key::PowerDrawInstant, watts(m.power_idle_w));
  put(v, Key::PowerLimit, watts(m.power_default_w));
  put(v, Key::EnforcedPowerLimit, watts(m.power_default_w));
  put(v, Key::PowerDefaultLimit, watts(m.power_default_w));
  put(v, Key::PowerMinLimit, watts(m.power_min_w));
  put(v, Key::PowerMaxLimit, watts(m.power_max_w));
  put(v, Key::ClocksCurrentGraphics, m.clock_gfx_idle);
  put(v, Key::ClocksCurrentSm, m.clock_gfx_idle);
  put(v, Key::ClocksCurrentMemory, m.clock_mem_idle);
  put(v, Key::ClocksCurrentVideo, std::min(m.clock_video_max, m.clock_gfx_idle * 2.5));
  put(v, Key::ClocksMaxGraphics, m.clock_gfx_max);
  put(v, Key::ClocksMaxSm, m.clock_gfx_max);
  put(v, Key::ClocksMaxMemory, m.clock_mem_max);
  put(v, Key::ClocksMaxVideo, m.clock_video_max);
  if (m.geforce) {
    for (Key k : {Key::ClocksApplicationsGraphics, Key::ClocksApplicationsMemory, Key::ClocksDefaultApplicationsGraphics,
                  Key::ClocksDefaultApplicationsMemory})
      na(v, k);
  } else {
    double app = std::round(m.clock_gfx_max * 0.82 / 15) * 15;
    put(v, Key::ClocksApplicationsGraphics, app);
    put(v, Key::ClocksDefaultApplicationsGraphics, app);
    put(v, Key::ClocksApplicationsMemory, m.clock_mem_max);
    put(v, Key::ClocksDefaultApplicationsMemory, m.clock_mem_max);
  }
  if (m.mig_capable) { put(v, Key::MigModeCurrent, "Disabled"); put(v, Key::MigModePending, "Disabled"); }
  else { na(v, Key::MigModeCurrent); na(v, Key::MigModePending); }
  put(v, Key::Brand, std::string(m.brand));
  put(v, Key::Architecture, std::string(m.architecture));
  put(v, Key::GpuCores, m.cores);
  if (m.part_number.empty()) na(v, Key::BoardPartNumber); else put(v, Key::BoardPartNumber, std::string(m.part_number));
  put(v, Key::Bar1Total, m.bar1_mib);
  // Recovery action (r550+ drivers): healthy. NVLink fabric: the Hopper SXM boards sit in an
  // NVSwitch system and have registered with it; other boards have no fabric (N/A).
  put(v, Key::GpuRecoveryAction, "None");
  if (m.architecture == "Hopper") {
    put(v, Key::FabricState, "Completed");
    put(v, Key::FabricStatus, "Success");
    put(v, Key::FabricCliqueId, 0);
    put(v, Key::FabricClusterUuid, "00000000-0000-0000-0000-000000000000");
  } else {
    for (Key k : {Key::FabricState, Key::FabricStatus, Key::FabricCliqueId, Key::FabricClusterUuid}) na(v, k);
  }
  // NVLink (issue 25): the SXM boards (H100, A100, V100) and the H200 have NVLink. Their data rate is
  // 0 KB/s until a scenario sets nvlink.tx_throughput / nvlink.rx_throughput; PCIe boards: [N/A].
  const bool nvlink = m.vendor == core::Vendor::Nvidia &&
                      (m.id.find("SXM") != std::string_view::npos || m.nvml_name.find("SXM") != std::string_view::npos ||
                       m.id == "H200");
  for (Key k : {Key::NvlinkTxThroughput, Key::NvlinkRxThroughput}) {
    if (nvlink) put(v, k, 0); else na(v, k);
  }
  if (m.vendor != core::Vendor::Nvidia) other_vendor_defaults(v, m, index, seed);
  return v;
}

ValueMap generic_defaults(unsigned index, std::uint64_t seed, core::Vendor vendor) {
  const ModelSpec* base = &kCatalog.front();
  for (const auto& m : kCatalog)
    if (m.vendor == vendor) { base = &m; break; }
  ValueMap v = model_defaults(*base, index, seed);
  static constexpr std::string_view kNames[] = {"NVIDIA Simulated GPU", "AMD Simulated GPU", "Intel Simulated GPU"};
  put(v, Key::Name, std::string(kNames[static_cast<std::size_t>(vendor)]));
  // What only a known model can tell is unknown here (an import's -q text may supply it).
  for (Key k : {Key::GpuCores, Key::TemperatureGpuShutdown, Key::TemperatureGpuSlowdown, Key::TemperatureGpuMaxOperating,
                Key::TemperatureMemoryMaxOperating, Key::ClocksMaxVideo, Key::BoardPartNumber, Key::Brand,
                Key::Architecture, Key::Bar1Total, Key::Bar1Used})
    na(v, k);
  return v;
}

}  // namespace gpuwatch::sim
