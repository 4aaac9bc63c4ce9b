#include "amd/sysfs_parse.hpp"

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "amd/gpu_metrics_layout.hpp"
#include "drm/fdinfo.hpp"

namespace gpuwatch::amd {
namespace {

std::string_view strip_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r' || s.back() == '\0')) {
    s.remove_suffix(1);
  }
  return s;
}

// The next line of TEXT (without its '\n'), TEXT advanced past it.
std::string_view next_line(std::string_view& text) {
  const auto end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

// The unsigned number at the start of S (after blanks), S advanced past it.
std::optional<std::uint64_t> leading_unsigned(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{}) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return v;
}

template <typename T>
std::optional<double> unless_unset(T value, T unset) {
  if (value == unset) return std::nullopt;
  return static_cast<double>(value);
}

constexpr double kJoulesPerEnergyUnit = 1.0 / 65536.0;  // 15.259 µJ: energy_accumulator's unit

}  // namespace

std::optional<std::int64_t> parse_integer(std::string_view text) {
  text = strip_blanks(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_hex(std::string_view text) {
  text = strip_blanks(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

DpmLevels parse_dpm_levels(std::string_view text) {
  DpmLevels out;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view rest = line.substr(colon + 1);
    const auto mhz = leading_unsigned(rest);
    if (!mhz) continue;
    if (!out.max_mhz || *mhz > *out.max_mhz) out.max_mhz = *mhz;
    if (rest.find('*') != std::string_view::npos) out.current_mhz = *mhz;
  }
  return out;
}

std::optional<unsigned> pcie_generation_of(std::string_view text) {
  text = strip_blanks(text);
  double gts = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), gts);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  struct Rate {
    double gts;
    unsigned gen;
  };
  static constexpr Rate kRates[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
  for (const auto& r : kRates) {
    if (gts > r.gts - 0.05 && gts < r.gts + 0.05) return r.gen;
  }
  return std::nullopt;
}

std::optional<RasCounts> parse_ras_counts(std::string_view text) {
  RasCounts out;
  bool ue = false, ce = false;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = strip_blanks(line.substr(0, colon));
    std::string_view rest = line.substr(colon + 1);
    const auto n = leading_unsigned(rest);
    if (!n) continue;
    if (key == "ue") out.uncorrectable = *n, ue = true;
    if (key == "ce") out.correctable = *n, ce = true;
  }
  if (!ue && !ce) return std::nullopt;
  return out;
}

Uevent parse_uevent(std::string_view text) {
  Uevent out;
  while (!text.empty()) {
    const std::string_view line = strip_blanks(next_line(text));
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "DRIVER") {
      out.driver = value;
    } else if (key == "PCI_SLOT_NAME") {
      out.slot = value;
    } else if (key == "PCI_ID") {
      const auto colon = value.find(':');
      if (colon == std::string_view::npos) continue;
      const auto vendor = parse_hex(value.substr(0, colon)), device = parse_hex(value.substr(colon + 1));
      if (vendor && device) {
        out.vendor_id = static_cast<std::uint32_t>(*vendor);
        out.device_id = static_cast<std::uint32_t>(*device);
      }
    }
  }
  return out;
}

std::optional<PciAddress> parse_pci_slot(std::string_view slot) {
  slot = strip_blanks(slot);
  // dddd:bb:dd.f
  const auto c1 = slot.find(':'), c2 = slot.rfind(':'), dot = slot.rfind('.');
  if (c1 == std::string_view::npos || c1 == c2 || dot == std::string_view::npos || dot < c2) return std::nullopt;
  const auto domain = parse_hex(slot.substr(0, c1)), bus = parse_hex(slot.substr(c1 + 1, c2 - c1 - 1)),
             device = parse_hex(slot.substr(c2 + 1, dot - c2 - 1)), function = parse_hex(slot.substr(dot + 1));
  if (!domain || !bus || !device || !function) return std::nullopt;
  return PciAddress{static_cast<std::uint32_t>(*domain), static_cast<std::uint32_t>(*bus),
                    static_cast<std::uint32_t>(*device), static_cast<std::uint32_t>(*function)};
}

std::string nvml_bus_id(const PciAddress& a) {
  return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", a.domain, a.bus, a.device, a.function);
}

DrmFdinfo parse_drm_fdinfo(std::string_view text) {
  DrmFdinfo out;
  const drm::FdinfoIdentity id = drm::parse_fdinfo_keys(text, [&](std::string_view key, std::string_view value) {
    if (key == "drm-engine-gfx") {
      out.gfx_ns = drm::fdinfo_leading_number(value).value_or(0);
    } else if (key == "drm-engine-compute") {
      out.compute_ns = drm::fdinfo_leading_number(value).value_or(0);
    } else if (key == "drm-memory-vram") {
      out.vram_bytes = drm::fdinfo_number(value);
    } else if (key == "drm-memory-gtt") {
      out.gtt_bytes = drm::fdinfo_number(value);
    }
  });
  out.driver = id.driver;
  out.pdev = id.pdev;
  out.client_id = id.client_id;
  return out;
}

std::optional<GpuMetricsReading> decode_gpu_metrics(const void* data, std::size_t size) {
  namespace gm = gpu_metrics;
  if (size < sizeof(gm::MetricsTableHeader)) return std::nullopt;
  gm::MetricsTableHeader header{};
  std::memcpy(&header, data, sizeof header);
  if (header.structure_size < sizeof header || header.structure_size > size) return std::nullopt;
  GpuMetricsReading out;
  out.format = header.format_revision;
  out.content = header.content_revision;
  if (header.format_revision != 1) return out;
  const auto power = [](std::uint16_t w) { return unless_unset<std::uint16_t>(w, gm::kUnset16); };
  const auto energy = [](std::uint64_t acc) -> std::optional<double> {
    if (acc == gm::kUnset64) return std::nullopt;
    return static_cast<double>(acc) * kJoulesPerEnergyUnit;
  };
  if (header.content_revision == 3 && header.structure_size >= sizeof(gm::GpuMetricsV1_3)) {
    gm::GpuMetricsV1_3 m{};
    std::memcpy(&m, data, sizeof m);
    if (m.indep_throttle_status != gm::kUnset64) out.indep_throttle_status = m.indep_throttle_status;
    out.hotspot_c = unless_unset<std::uint16_t>(m.temperature_hotspot, gm::kUnset16);
    out.mem_c = unless_unset<std::uint16_t>(m.temperature_mem, gm::kUnset16);
    out.socket_power_w = power(m.average_socket_power);
    out.energy_j = energy(m.energy_accumulator);
    if (m.current_gfxclk != gm::kUnset16) out.gfxclk_mhz = m.current_gfxclk;
  } else if ((header.content_revision == 4 && header.structure_size >= sizeof(gm::GpuMetricsV1_4)) ||
             (header.content_revision == 5 && header.structure_size >= sizeof(gm::GpuMetricsV1_5))) {
    // MI300's tables: the same fields at other offsets; their throttle_status is not the
    // ASIC-independent one, so no clock event reasons from them.
    const auto read = [&](const auto& m) {
      out.hotspot_c = unless_unset<std::uint16_t>(m.temperature_hotspot, gm::kUnset16);
      out.mem_c = unless_unset<std::uint16_t>(m.temperature_mem, gm::kUnset16);
      out.socket_power_w = power(m.curr_socket_power);
      out.energy_j = energy(m.energy_accumulator);
      if (m.current_gfxclk[0] != gm::kUnset16) out.gfxclk_mhz = m.current_gfxclk[0];
    };
    if (header.content_revision == 4) {
      gm::GpuMetricsV1_4 m{};
      std::memcpy(&m, data, sizeof m);
      read(m);
    } else {
      gm::GpuMetricsV1_5 m{};
      std::memcpy(&m, data, sizeof m);
      read(m);
    }
  }
  return out;
}

std::uint64_t clock_event_reasons_of(std::uint64_t indep) {
  namespace t = gpu_metrics::throttler;
  std::uint64_t reasons = 0;
  if ((indep & t::kPowerMask) != 0) reasons |= kReasonSwPowerCap;
  if ((indep & t::kCurrentMask) != 0) reasons |= kReasonHwSlowdown;
  if ((indep & t::kThermalMask) != 0) reasons |= kReasonSwThermal;
  if ((indep & t::kHwThermalMask) != 0) reasons |= kReasonHwThermal;
  return reasons;
}

}  // namespace gpuwatch::amd
