// The simulated AMD and Intel cards' files at one moment (vendor_files.hpp). Formats: the kernel's
// (Documentation/gpu/amdgpu/thermal.rst and driver-misc.rst, i915.rst, xe/, drm-usage-stats.rst),
// as /work/notes/vendor_contract.md lists them; docs/simulator.md has the table of values.
#include "sim/engine/vendor_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string_view>
#include <utility>

#include "amd/gpu_metrics_layout.hpp"
#include "sim/engine/catalog.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {


namespace vendor_files {

// The Intel models the xe driver binds by default; every other Intel board runs i915.
constexpr std::string_view kXeModels[] = {"Arc A770"};

constexpr double kBytesPerMiB = 1048576.0;
constexpr double kFanMaxRpm = 3300;         // fan1_max of the simulated boards with a fan
constexpr double kJunctionAboveEdge = 6;    // °C: the hotspot sensor reads above the edge one
constexpr double kXeTimestampHz = 19.2e6;   // the GT timestamp clock drm-total-cycles-* counts
constexpr double kUptimeAtEpochS = 600;     // the simulated GPU's uptime at scenario time 0

// NVML's clock event reason bits (nvmlClocksEventReason*) the simulation raises.
constexpr std::uint64_t kReasonSwPowerCap = 0x4, kReasonHwSlowdown = 0x8, kReasonSwThermal = 0x20,
                        kReasonHwThermal = 0x40, kReasonHwPowerBrake = 0x80;

std::optional<double> static_number(const Simulation& sim, unsigned gpu, Key key) {
  const Value& v = sim.static_value(gpu, key);
  if (v.is_number()) return v.number;
  return std::nullopt;
}

// The value of KEY at the sample's moment: the dynamic one, else the static one.
std::optional<double> value_at(const Simulation& sim, unsigned gpu, const DynamicSample& s, Key key) {
  if (s.has.test(key_index(key))) return s.num[key_index(key)];
  return static_number(sim, gpu, key);
}

// A static text (name, serial, UUID): as displayed; nullopt when absent or an error.
std::optional<std::string> static_text(const Simulation& sim, unsigned gpu, Key key) {
  const Value& v = sim.static_value(gpu, key);
  if (v.is_absent() || v.is_error()) return std::nullopt;
  std::string text = v.kind == Value::Kind::Text ? v.text : display_text(v);
  if (text.empty()) return std::nullopt;
  return text;
}

std::uint64_t round_u64(double x) { return x <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(x)); }

std::string line_u64(double x) { return fmt::format("{}\n", round_u64(x)); }

// "0x74A11002" (device << 16 | vendor) -> {vendor, device}.
std::pair<unsigned, unsigned> pci_ids(const Simulation& sim, unsigned gpu, Key key, unsigned fallback_vendor) {
  const Value& v = sim.static_value(gpu, key);
  if (!v.is_number()) return {fallback_vendor, 0};
  const auto id = v.integer != 0 ? v.integer : static_cast<std::uint64_t>(v.number);
  return {static_cast<unsigned>(id & 0xFFFF), static_cast<unsigned>((id >> 16) & 0xFFFF)};
}

// PCIe generation -> the PCI core's link speed text.
std::string link_speed_text(double gen) {
  switch (static_cast<int>(std::lround(gen))) {
    case 1: return "2.5 GT/s PCIe";
    case 2: return "5.0 GT/s PCIe";
    case 3: return "8.0 GT/s PCIe";
    case 4: return "16.0 GT/s PCIe";
    case 5: return "32.0 GT/s PCIe";
    case 6: return "64.0 GT/s PCIe";
    default: return "Unknown";
  }
}

// gpu_metrics' pcie_link_speed: 0.1 GT/s.
std::uint16_t link_speed_tenths(double gen) {
  static constexpr std::uint16_t kTenths[] = {0, 25, 50, 80, 160, 320, 640};
  const auto g = static_cast<int>(std::lround(gen));
  return g >= 1 && g <= 6 ? kTenths[g] : amd::gpu_metrics::kUnset16;
}

// pp_dpm_sclk / pp_dpm_mclk as swsmu prints a fine-grained clock (smu_v13_0_6_print_clk_levels):
// the minimum, the current one between them when it is neither, the maximum; '*' marks the current
// level; each line "%d: %uMhz %s\n".
std::string dpm_levels(double min_mhz, double cur_mhz, double max_mhz) {
  const auto lo = round_u64(std::min(min_mhz, max_mhz)), cur = round_u64(cur_mhz), hi = round_u64(max_mhz);
  std::vector<std::uint64_t> levels = {lo};
  if (cur > lo && cur < hi) levels.push_back(cur);
  if (hi != lo) levels.push_back(hi);
  // The level nearest to the current clock carries the mark (the current one itself when listed).
  std::size_t marked = 0;
  for (std::size_t i = 1; i < levels.size(); ++i) {
    const auto d = [&](std::uint64_t x) { return x > cur ? x - cur : cur - x; };
    if (d(levels[i]) < d(levels[marked])) marked = i;
  }
  std::string out;
  for (std::size_t i = 0; i < levels.size(); ++i) out += fmt::format("{}: {}Mhz {}\n", i, levels[i], i == marked ? "*" : "");
  return out;
}

// NVML's clock event reasons -> the SMU_THROTTLER_* bits of gpu_metrics' indep_throttle_status.
std::uint64_t indep_throttle_bits(std::uint64_t reasons) {
  namespace th = amd::gpu_metrics::throttler;
  std::uint64_t bits = 0;
  if (reasons & kReasonSwPowerCap) bits |= th::bit(th::kPpt0);
  if (reasons & kReasonHwPowerBrake) bits |= th::bit(th::kPpt1);
  if (reasons & kReasonHwSlowdown) bits |= th::bit(th::kTdcGfx);
  if (reasons & kReasonSwThermal) bits |= th::bit(th::kTempHotspot);
  if (reasons & kReasonHwThermal) bits |= th::bit(th::kProchotGfx);
  return bits;
}

std::string uevent_text(const char* driver, unsigned vendor, unsigned device, std::pair<unsigned, unsigned> subsys,
                        bool display_class, const std::string& slot) {
  const unsigned pci_class = display_class ? 0x30000 : 0x38000;  // VGA controller / display controller
  return fmt::format(
      "DRIVER={}\nPCI_CLASS={:X}\nPCI_ID={:04X}:{:04X}\nPCI_SUBSYS_ID={:04X}:{:04X}\nPCI_SLOT_NAME={}\n"
      "MODALIAS=pci:v{:08X}d{:08X}sv{:08X}sd{:08X}bc{:02X}sc{:02X}i00\n",
      driver, pci_class, vendor, device, subsys.first, subsys.second, slot, vendor, device, subsys.first, subsys.second,
      pci_class >> 16, (pci_class >> 8) & 0xFF);
}

double wall_seconds(const Simulation& sim, double t) { return t / std::max(1e-9, sim.scenario().time_scale); }

const ModelSpec* model_of(const Simulation& sim, unsigned gpu) { return find_model(sim.scenario().gpus[gpu].model); }

bool is_mi300(const Simulation& sim, unsigned gpu) {
  const ModelSpec* m = model_of(sim, gpu);
  return m != nullptr && std::string_view(m->id).find("MI300") != std::string_view::npos;
}

std::string hwmon_dir(const VendorCard& card) { return fmt::format("device/hwmon/hwmon{}", card.card); }

// The files every card has whatever its driver (discovery: uevent, vendor, device).
Files identity_files(const Simulation& sim, const VendorCard& card, const char* driver) {
  const unsigned g = card.gpu;
  const unsigned vendor_id = pci_vendor_id(card.vendor);
  auto [vendor, device] = pci_ids(sim, g, Key::PciDeviceId, vendor_id);
  if (vendor != vendor_id || device == 0) {  // a GPU whose pci.device_id is not its vendor's: the model's
    vendor = vendor_id;
    if (const ModelSpec* m = model_of(sim, g)) device = m->device_id;
  }
  auto [sub_vendor, sub_device] = pci_ids(sim, g, Key::PciSubDeviceId, vendor_id);
  const ModelSpec* m = model_of(sim, g);
  const bool consumer = m != nullptr && m->geforce;
  const std::string slot = sysfs_pci_slot(sim.static_value(g, Key::PciBusId).text);
  Files files = {
      {"device/uevent", uevent_text(driver, vendor, device, {sub_vendor, sub_device}, consumer, slot)},
      {"device/vendor", fmt::format("0x{:04x}\n", vendor)},
      {"device/device", fmt::format("0x{:04x}\n", device)},
      {"device/subsystem_vendor", fmt::format("0x{:04x}\n", sub_vendor)},
      {"device/subsystem_device", fmt::format("0x{:04x}\n", sub_device)},
      {"uevent", fmt::format("MAJOR=226\nMINOR={}\nDEVNAME=dri/card{}\nDEVTYPE=drm_minor\n", card.card, card.card)},
  };
  if (auto w = static_number(sim, g, Key::PcieLinkWidthMax)) files.push_back({"device/max_link_width", line_u64(*w)});
  if (auto gen = static_number(sim, g, Key::PcieLinkGenMax))
    files.push_back({"device/max_link_speed", link_speed_text(*gen) + "\n"});
  return files;
}

// AMD's static files: identity, limits, hwmon labels.
Files amd_static_files(const Simulation& sim, const VendorCard& card) {
  const unsigned g = card.gpu;
  Files files = identity_files(sim, card, "amdgpu");
  if (auto name = static_text(sim, g, Key::Name)) files.push_back({"device/product_name", *name + "\n"});
  if (auto uuid = static_text(sim, g, Key::Uuid)) {
    std::string hex;
    std::string_view rest = *uuid;
    if (rest.starts_with("AMD-")) rest.remove_prefix(4);
    for (char c : rest)
      if (std::isxdigit(static_cast<unsigned char>(c)) && hex.size() < 16)
        hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (hex.size() == 16) files.push_back({"device/unique_id", hex + "\n"});
  }
  if (auto serial = static_text(sim, g, Key::Serial)) files.push_back({"device/serial_number", *serial + "\n"});
  if (auto total = static_number(sim, g, Key::MemoryTotal))
    files.push_back({"device/mem_info_vram_total", line_u64(*total * kBytesPerMiB)});
  const std::string hw = hwmon_dir(card);
  files.push_back({hw + "/name", "amdgpu\n"});
  files.push_back({hw + "/temp1_label", "edge\n"});
  files.push_back({hw + "/temp2_label", "junction\n"});
  if (static_number(sim, g, Key::TemperatureMemory)) files.push_back({hw + "/temp3_label", "mem\n"});
  const auto milli = [](double c) { return line_u64(c * 1000); };
  if (auto slow = static_number(sim, g, Key::TemperatureGpuSlowdown)) {
    files.push_back({hw + "/temp1_crit", milli(*slow)});
    files.push_back({hw + "/temp2_crit", milli(*slow + kJunctionAboveEdge)});
  }
  if (auto shut = static_number(sim, g, Key::TemperatureGpuShutdown)) {
    files.push_back({hw + "/temp1_emergency", milli(*shut)});
    files.push_back({hw + "/temp2_emergency", milli(*shut + kJunctionAboveEdge)});
  }
  if (auto mem = static_number(sim, g, Key::TemperatureMemoryMaxOperating)) files.push_back({hw + "/temp3_crit", milli(*mem)});
  const auto micro = [](double w) { return line_u64(w * 1e6); };
  auto cap = static_number(sim, g, Key::PowerLimit);
  if (!cap) cap = static_number(sim, g, Key::EnforcedPowerLimit);
  if (cap) files.push_back({hw + "/power1_cap", micro(*cap)});
  if (auto max = static_number(sim, g, Key::PowerMaxLimit)) files.push_back({hw + "/power1_cap_max", micro(*max)});
  if (auto min = static_number(sim, g, Key::PowerMinLimit)) files.push_back({hw + "/power1_cap_min", micro(*min)});
  if (static_number(sim, g, Key::FanSpeed)) {
    files.push_back({hw + "/pwm1_min", "0\n"});
    files.push_back({hw + "/pwm1_max", "255\n"});
    files.push_back({hw + "/fan1_min", "0\n"});
    files.push_back({hw + "/fan1_max", line_u64(kFanMaxRpm)});
  }
  return files;
}

// The gpu_metrics table (format 1, content 3) at the sample's moment.
std::string amd_gpu_metrics(const Simulation& sim, unsigned g, const DynamicSample& s, double t, std::int64_t epoch_ms) {
  namespace gm = amd::gpu_metrics;
  gm::GpuMetricsV1_3 m;
  std::memset(&m, 0xFF, sizeof m);  // every field the firmware does not fill reads all ones
  m.common_header = {static_cast<std::uint16_t>(sizeof m), 1, 3};
  const auto u16 = [](std::optional<double> x) {
    return x ? static_cast<std::uint16_t>(std::clamp<double>(std::round(*x), 0, 0xFFFE)) : gm::kUnset16;
  };
  const auto temp = value_at(sim, g, s, Key::TemperatureGpu);
  m.temperature_edge = u16(temp);
  m.temperature_hotspot = u16(temp ? std::optional(*temp + kJunctionAboveEdge) : std::nullopt);
  m.temperature_mem = u16(value_at(sim, g, s, Key::TemperatureMemory));
  m.average_gfx_activity = u16(value_at(sim, g, s, Key::UtilizationGpu));
  m.average_umc_activity = u16(value_at(sim, g, s, Key::UtilizationMemory));
  m.average_socket_power = u16(value_at(sim, g, s, Key::PowerDraw));
  if (auto energy = value_at(sim, g, s, Key::EnergyTotal))  // J on the wall clock, in 2^-16 J units
    m.energy_accumulator = round_u64(wall_seconds(sim, *energy) * 65536.0);
  const double unix_ns = static_cast<double>(epoch_ms) * 1e6 + wall_seconds(sim, t) * 1e9;
  m.system_clock_counter = round_u64(unix_ns);
  m.firmware_timestamp = round_u64(unix_ns / 10);
  const auto sclk = value_at(sim, g, s, Key::ClocksCurrentSm);
  const auto mclk = value_at(sim, g, s, Key::ClocksCurrentMemory);
  m.average_gfxclk_frequency = m.current_gfxclk = u16(sclk);
  m.average_uclk_frequency = m.current_uclk = u16(mclk);
  const auto reasons = value_at(sim, g, s, Key::ClocksEventReasonsActive);
  const std::uint64_t indep = reasons ? indep_throttle_bits(static_cast<std::uint64_t>(*reasons)) : 0;
  m.indep_throttle_status = indep;
  // ASIC dependent bits: the power and current ones at their SMU_THROTTLER positions (they fit
  // in 32 bits); the temperature ones are in indep_throttle_status only.
  m.throttle_status = static_cast<std::uint32_t>(indep & 0xFFFFFFFFu);
  if (auto fan = value_at(sim, g, s, Key::FanSpeed)) m.current_fan_speed = u16(*fan / 100 * kFanMaxRpm);
  m.pcie_link_width = u16(value_at(sim, g, s, Key::PcieLinkWidthCurrent));
  if (auto gen = value_at(sim, g, s, Key::PcieLinkGenCurrent)) m.pcie_link_speed = link_speed_tenths(*gen);
  m.padding = 0;
  m.padding1 = 0;
  return std::string(reinterpret_cast<const char*>(&m), sizeof m);
}

// AMD's files that change with time.
Files amd_dynamic_files(const Simulation& sim, const VendorCard& card, const DynamicSample& s, double t,
                        std::int64_t epoch_ms) {
  const unsigned g = card.gpu;
  Files files;
  const auto put = [&](std::string name, std::optional<double> x, double scale = 1) {
    if (x) files.push_back({std::move(name), line_u64(*x * scale)});
  };
  put("device/gpu_busy_percent", value_at(sim, g, s, Key::UtilizationGpu));
  put("device/mem_busy_percent", value_at(sim, g, s, Key::UtilizationMemory));
  put("device/mem_info_vram_used", value_at(sim, g, s, Key::MemoryUsed), kBytesPerMiB);
  const ModelSpec* model = model_of(sim, g);
  const auto sclk = value_at(sim, g, s, Key::ClocksCurrentSm);
  auto sclk_max = static_number(sim, g, Key::ClocksMaxSm);
  if (!sclk_max) sclk_max = static_number(sim, g, Key::ClocksMaxGraphics);
  if (sclk && sclk_max)
    files.push_back({"device/pp_dpm_sclk", dpm_levels(model ? model->clock_gfx_idle : std::min(*sclk, *sclk_max * 0.25),
                                                      *sclk, *sclk_max)});
  const auto mclk = value_at(sim, g, s, Key::ClocksCurrentMemory);
  const auto mclk_max = static_number(sim, g, Key::ClocksMaxMemory);
  if (mclk && mclk_max)
    files.push_back({"device/pp_dpm_mclk", dpm_levels(model ? model->clock_mem_idle : *mclk, *mclk, *mclk_max)});
  if (auto gen = value_at(sim, g, s, Key::PcieLinkGenCurrent))
    files.push_back({"device/current_link_speed", link_speed_text(*gen) + "\n"});
  put("device/current_link_width", value_at(sim, g, s, Key::PcieLinkWidthCurrent));
  files.push_back({"device/gpu_metrics", amd_gpu_metrics(sim, g, s, t, epoch_ms)});

  const std::string hw = hwmon_dir(card);
  const auto temp = value_at(sim, g, s, Key::TemperatureGpu);
  put(hw + "/temp1_input", temp, 1000);
  if (temp) put(hw + "/temp2_input", *temp + kJunctionAboveEdge, 1000);
  put(hw + "/temp3_input", value_at(sim, g, s, Key::TemperatureMemory), 1000);
  // MI300's SMU reports the instant socket power (power1_input); the others an average.
  put(hw + (is_mi300(sim, g) ? "/power1_input" : "/power1_average"), value_at(sim, g, s, Key::PowerDraw), 1e6);
  if (auto energy = value_at(sim, g, s, Key::EnergyTotal)) put(hw + "/energy1_input", wall_seconds(sim, *energy), 1e6);
  if (auto fan = value_at(sim, g, s, Key::FanSpeed)) {
    put(hw + "/fan1_input", *fan / 100 * kFanMaxRpm);
    put(hw + "/pwm1", *fan / 100 * 255);
  }

  // RAS: the memory controller's (umc) counts are the device memory's ECC errors; gfx has the rest.
  const auto ce_mem = value_at(sim, g, s, Key::EccErrorsCorrectedVolatileDeviceMemory);
  const auto ue_mem = value_at(sim, g, s, Key::EccErrorsUncorrectedVolatileDeviceMemory);
  if (ce_mem && ue_mem) {
    files.push_back({"device/ras/umc_err_count", fmt::format("ue: {}\nce: {}\n", round_u64(*ue_mem), round_u64(*ce_mem))});
    const double ce_all = value_at(sim, g, s, Key::EccErrorsCorrectedVolatileTotal).value_or(*ce_mem);
    const double ue_all = value_at(sim, g, s, Key::EccErrorsUncorrectedVolatileTotal).value_or(*ue_mem);
    files.push_back({"device/ras/gfx_err_count",
                     fmt::format("ue: {}\nce: {}\n", round_u64(ue_all - *ue_mem), round_u64(ce_all - *ce_mem))});
  }
  return files;
}

// Intel's static files: identity, frequency limits, hwmon name and power limits.
Files intel_static_files(const Simulation& sim, const VendorCard& card) {
  const unsigned g = card.gpu;
  const bool xe = card.driver == KernelDriver::Xe;
  Files files = identity_files(sim, card, xe ? "xe" : "i915");
  const ModelSpec* model = model_of(sim, g);
  auto max = static_number(sim, g, Key::ClocksMaxSm);
  if (!max) max = static_number(sim, g, Key::ClocksMaxGraphics);
  if (max) {
    const double min = model ? model->clock_gfx_idle : *max * 0.2;
    if (xe) {
      files.push_back({"device/tile0/gt0/freq0/max_freq", line_u64(*max)});
      files.push_back({"device/tile0/gt0/freq0/rp0_freq", line_u64(*max)});
      files.push_back({"device/tile0/gt0/freq0/min_freq", line_u64(min)});
      files.push_back({"device/tile0/gt0/freq0/rpn_freq", line_u64(min)});
    } else {
      files.push_back({"gt_max_freq_mhz", line_u64(*max)});
      files.push_back({"gt_boost_freq_mhz", line_u64(*max)});
      files.push_back({"gt_RP0_freq_mhz", line_u64(*max)});
      files.push_back({"gt_min_freq_mhz", line_u64(min)});
      files.push_back({"gt_RPn_freq_mhz", line_u64(min)});
    }
  }
  const std::string hw = hwmon_dir(card);
  files.push_back({hw + "/name", xe ? "xe\n" : "i915\n"});
  auto cap = static_number(sim, g, Key::PowerLimit);
  if (!cap) cap = static_number(sim, g, Key::EnforcedPowerLimit);
  if (cap) files.push_back({hw + "/power1_max", line_u64(*cap * 1e6)});
  if (auto rated = static_number(sim, g, Key::PowerDefaultLimit)) files.push_back({hw + "/power1_rated_max", line_u64(*rated * 1e6)});
  if (xe) files.push_back({hw + "/temp2_label", "pkg\n"});
  return files;
}

// Intel's files that change with time.
Files intel_dynamic_files(const Simulation& sim, const VendorCard& card, const DynamicSample& s) {
  const unsigned g = card.gpu;
  const bool xe = card.driver == KernelDriver::Xe;
  Files files;
  const auto put = [&](std::string name, std::optional<double> x, double scale = 1) {
    if (x) files.push_back({std::move(name), line_u64(*x * scale)});
  };
  const auto clock = value_at(sim, g, s, Key::ClocksCurrentSm);
  if (xe) {
    put("device/tile0/gt0/freq0/act_freq", clock);
    put("device/tile0/gt0/freq0/cur_freq", clock);
  } else {
    put("gt_act_freq_mhz", clock);
    put("gt_cur_freq_mhz", clock);
  }
  const std::string hw = hwmon_dir(card);
  if (auto energy = value_at(sim, g, s, Key::EnergyTotal)) put(hw + "/energy1_input", wall_seconds(sim, *energy), 1e6);
  if (xe) put(hw + "/temp2_input", value_at(sim, g, s, Key::TemperatureGpu), 1000);
  if (auto fan = value_at(sim, g, s, Key::FanSpeed)) put(hw + "/fan1_input", *fan / 100 * kFanMaxRpm);
  return files;
}

std::string fdinfo_text(const VendorCard& card, const std::string& slot, unsigned client_id, bool compute, double busy_s,
                        double wall_s, double memory_mib) {
  const auto kib = round_u64(memory_mib * 1024);
  std::string out = fmt::format("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t{}\ndrm-driver:\t{}\ndrm-pdev:\t{}\ndrm-client-id:\t{}\n",
                                1000 + client_id, kernel_driver_name(card.driver), slot, client_id);
  const auto ns = round_u64(busy_s * 1e9);
  switch (card.driver) {
    case KernelDriver::Amdgpu:
      out += fmt::format("drm-memory-vram:\t{} KiB\ndrm-memory-gtt:\t{} KiB\n", kib, 2048);
      out += fmt::format("drm-engine-gfx:\t{} ns\ndrm-engine-compute:\t{} ns\n", compute ? 0 : ns, compute ? ns : 0);
      break;
    case KernelDriver::I915:
      out += fmt::format("drm-total-local0:\t{} KiB\ndrm-resident-local0:\t{} KiB\n", kib, kib);
      out += fmt::format("drm-engine-render:\t{} ns\ndrm-engine-compute:\t{} ns\n", compute ? 0 : ns, compute ? ns : 0);
      break;
    case KernelDriver::Xe: {
      out += fmt::format("drm-total-vram0:\t{} KiB\ndrm-resident-vram0:\t{} KiB\n", kib, kib);
      const auto total = round_u64((std::max(0.0, wall_s) + kUptimeAtEpochS) * kXeTimestampHz);
      const auto cycles = round_u64(busy_s * kXeTimestampHz);
      out += fmt::format("drm-cycles-rcs:\t{}\ndrm-total-cycles-rcs:\t{}\n", compute ? 0 : cycles, total);
      out += fmt::format("drm-cycles-ccs:\t{}\ndrm-total-cycles-ccs:\t{}\n", compute ? cycles : 0, total);
      break;
    }
  }
  return out;
}

Files static_files(const Simulation& sim, const VendorCard& card) {
  return card.vendor == core::Vendor::Amd ? amd_static_files(sim, card) : intel_static_files(sim, card);
}

Files dynamic_files(const Simulation& sim, const VendorCard& card, const DynamicSample& s, double t,
                    std::int64_t epoch_ms) {
  return card.vendor == core::Vendor::Amd ? amd_dynamic_files(sim, card, s, t, epoch_ms) : intel_dynamic_files(sim, card, s);
}

}  // namespace vendor_files

using namespace vendor_files;

const char* kernel_driver_name(KernelDriver driver) {
  switch (driver) {
    case KernelDriver::Amdgpu: return "amdgpu";
    case KernelDriver::I915: return "i915";
    case KernelDriver::Xe: return "xe";
  }
  return "?";
}

std::vector<VendorCard> vendor_cards(const Scenario& scenario) {
  std::vector<VendorCard> cards;
  for (unsigned g : gpus_of_vendor(scenario, core::Vendor::Amd))
    cards.push_back({g, static_cast<unsigned>(cards.size()), core::Vendor::Amd, KernelDriver::Amdgpu});
  for (unsigned g : gpus_of_vendor(scenario, core::Vendor::Intel)) {
    const ModelSpec* m = find_model(scenario.gpus[g].model);
    const bool xe = m != nullptr && std::find(std::begin(kXeModels), std::end(kXeModels), m->id) != std::end(kXeModels);
    cards.push_back({g, static_cast<unsigned>(cards.size()), core::Vendor::Intel, xe ? KernelDriver::Xe : KernelDriver::I915});
  }
  return cards;
}

std::string sysfs_pci_slot(const std::string& bus_id) {
  std::string s;
  for (char c : bus_id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.size() == 16) s = s.substr(4);  // 8-digit domain -> 4
  return s;
}

}  // namespace gpuwatch::sim
