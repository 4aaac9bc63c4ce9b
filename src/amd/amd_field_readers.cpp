#include "amd/amd_field_readers.hpp"

#include <cerrno>
#include <cctype>

#include <fmt/format.h>

#include "amd/amd_errors.hpp"
#include "amd/card_writer.hpp"
#include "amd/gpu_metrics_layout.hpp"
#include "amd/sysfs_file.hpp"

namespace gpuwatch::amd {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldValue;
using core::Source;
using detail::amd_arg;
using detail::CardWriter;
using detail::Number;
using F = CardFile;

constexpr std::uint64_t kHzPerMHz = 1000000;
constexpr double kPercentRatio = 1e-2;
constexpr double kPerMicro = 1e-6;  // µW -> W, µJ -> J
constexpr std::int64_t kMilliPerDegree = 1000;

// One file, one number, the same value for every field of the group.
template <typename Convert>
void read_number_group(CardWriter& w, CardFile file, Convert convert) {
  const Number n = w.number(file);
  for (auto f : w.fields()) {
    if (n.value) {
      w.set(f, convert(*n.value));
    } else {
      w.fail(f, n.error);
    }
  }
}

std::uint64_t non_negative(std::int64_t v) { return v < 0 ? 0 : static_cast<std::uint64_t>(v); }
double micro_to_base(std::int64_t v) { return static_cast<double>(v) * kPerMicro; }
std::int64_t milli_degrees_to_c(std::int64_t v) { return v / kMilliPerDegree; }

void read_text_group(CardWriter& w, CardFile file) {
  core::ReadError error;
  const auto t = w.card().path(file).empty() ? std::nullopt : w.text(file, &error);
  for (auto f : w.fields()) w.set_or_fail(f, t, error);
}

void read_name(CardWriter& w) {
  core::ReadError error;
  auto name = w.text(F::ProductName, &error);
  if (!name) name = fmt::format("AMD GPU [{:04x}:{:04x}]", w.card().vendor_id, w.card().device_id);
  for (auto f : w.fields()) w.set(f, *name);
}

void read_uuid(CardWriter& w) {
  core::ReadError error;
  auto id = w.text(F::UniqueId, &error);
  if (id) {
    for (auto& c : *id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    id = "AMD-" + *id;
  }
  for (auto f : w.fields()) w.set_or_fail(f, id, error);
}

void read_pci_info(CardWriter& w) {
  const auto& a = w.card().address;
  for (auto f : w.fields()) {
    if (!a) {
      w.unsupported(f);
      continue;
    }
    switch (amd_arg(f)) {
      case 0: w.set(f, nvml_bus_id(*a)); break;
      case 1: w.set(f, std::uint64_t{a->domain}); break;
      case 2: w.set(f, std::uint64_t{a->bus}); break;
      case 3: w.set(f, std::uint64_t{a->device}); break;
      case 4: w.set(f, (std::uint64_t{w.card().device_id} << 16) | w.card().vendor_id); break;
      default: {
        FileBuffer<32> vendor, device;
        read_file(w.card().path(F::SubsystemVendor), vendor);
        read_file(w.card().path(F::SubsystemDevice), device);
        const auto v = vendor.ok() ? parse_hex(vendor.text()) : std::nullopt;
        const auto d = device.ok() ? parse_hex(device.text()) : std::nullopt;
        if (v && d) {
          w.set(f, (*d << 16) | *v);
        } else {
          w.fail(f, w.file_error(vendor.ok() ? (device.ok() ? EBADMSG : device.error) : vendor.error));
        }
        break;
      }
    }
  }
}

void read_link_generation(CardWriter& w, CardFile file) {
  FileBuffer<64> buf;
  read_file(w.card().path(file), buf);
  const auto gen = buf.ok() ? pcie_generation_of(buf.text()) : std::nullopt;
  const core::ReadError error = buf.ok() ? error_from_errno(EBADMSG) : w.file_error(buf.error);
  for (auto f : w.fields()) {
    if (gen) {
      w.set(f, std::uint64_t{*gen});
    } else {
      w.fail(f, error);
    }
  }
}

void read_fan_speed(CardWriter& w) {
  const Number pwm = w.number(F::Pwm);
  const Number pwm_max = w.number(F::PwmMax);
  const double max = pwm_max.value && *pwm_max.value > 0 ? static_cast<double>(*pwm_max.value) : 255.0;
  for (auto f : w.fields()) {
    if (pwm.value) {
      w.set(f, static_cast<double>(*pwm.value) / max);
    } else {
      w.fail(f, pwm.error);
    }
  }
}

void read_event_reasons(CardWriter& w) {
  core::ReadError error;
  const auto m = w.metrics(&error);
  const std::optional<std::uint64_t> indep = m ? m->indep_throttle_status : std::nullopt;
  if (m && !indep) error = error_of_reason(core::ErrorReason::NotSupported);  // a table without the bits
  const std::uint64_t active = indep ? clock_event_reasons_of(*indep) : 0;
  for (auto f : w.fields()) {
    const int a = amd_arg(f);
    if (!indep) {
      w.fail(f, error);
    } else if (a == -1) {
      w.set(f, kReasonsSupported);
    } else if (a == -2) {
      w.set(f, active);
    } else if ((kReasonsSupported & static_cast<std::uint64_t>(a)) != 0) {
      w.set(f, (active & static_cast<std::uint64_t>(a)) != 0);
    } else {
      w.unsupported(f);  // idle, application clocks, sync boost, power brake: the table has no such bit
    }
  }
}

void read_memory(CardWriter& w) {
  const Number total = w.number(F::VramTotal);
  const Number used = w.number(F::VramUsed);
  for (auto f : w.fields()) {
    switch (amd_arg(f)) {
      case 0: total.value ? w.set(f, non_negative(*total.value)) : w.fail(f, total.error); break;
      case 2: used.value ? w.set(f, non_negative(*used.value)) : w.fail(f, used.error); break;
      case 3:
        if (total.value && used.value) {
          w.set(f, *total.value > *used.value ? non_negative(*total.value - *used.value) : std::uint64_t{0});
        } else {
          w.fail(f, total.value ? used.error : total.error);
        }
        break;
      default: w.unsupported(f); break;  // reserved: amdgpu does not say
    }
  }
}

void read_utilization(CardWriter& w) {
  bool need_gpu = false, need_mem = false;
  for (auto f : w.fields()) (amd_arg(f) == 0 ? need_gpu : need_mem) = true;
  const Number gpu = need_gpu ? w.number(F::GpuBusyPercent) : Number{};
  const Number mem = need_mem ? w.number(F::MemBusyPercent) : Number{};
  for (auto f : w.fields()) {
    const Number& n = amd_arg(f) == 0 ? gpu : mem;
    n.value ? w.set(f, static_cast<double>(*n.value) * kPercentRatio) : w.fail(f, n.error);
  }
}

// The RAS counts of the memory controller (umc) and, for totals, the graphics block too.
struct RasTotals {
  std::optional<RasCounts> umc, gfx;
  core::ReadError umc_error, gfx_error;
};

RasTotals read_ras(CardWriter& w, bool need_gfx) {
  RasTotals t;
  const auto one = [&](CardFile file, std::optional<RasCounts>& out, core::ReadError& error) {
    FileBuffer<256> buf;
    read_file(w.card().path(file), buf);
    if (!buf.ok()) {
      error = w.file_error(buf.error);
      return;
    }
    out = parse_ras_counts(buf.text());
    if (!out) error = error_from_errno(EBADMSG);
  };
  one(F::RasUmc, t.umc, t.umc_error);
  if (need_gfx) one(F::RasGfx, t.gfx, t.gfx_error);
  return t;
}

void read_total_ecc(CardWriter& w) {
  const RasTotals t = read_ras(w, true);
  for (auto f : w.fields()) {
    const int a = amd_arg(f);
    const bool uncorrected = a / 10 == 1, volatile_counter = a % 10 == 0;
    if (!volatile_counter) {
      w.unsupported(f);  // amdgpu counts since the driver loaded; the lifetime count is in the EEPROM only
      continue;
    }
    if (!t.umc && !t.gfx) {
      w.fail(f, t.umc_error);
      continue;
    }
    std::uint64_t sum = 0;
    for (const auto& c : {t.umc, t.gfx}) {
      if (c) sum += uncorrected ? c->uncorrectable : c->correctable;
    }
    w.set(f, sum);
  }
}

void read_memory_error_counter(CardWriter& w) {
  const RasTotals t = read_ras(w, false);
  for (auto f : w.fields()) {
    const int a = amd_arg(f);
    const bool uncorrected = a / 100 == 1, volatile_counter = (a / 10) % 10 == 0, device_memory = a % 10 == 2;
    if (!volatile_counter || !device_memory) {
      w.unsupported(f);
    } else if (t.umc) {
      w.set(f, uncorrected ? t.umc->uncorrectable : t.umc->correctable);
    } else {
      w.fail(f, t.umc_error);
    }
  }
}

void read_field_values(CardWriter& w) {
  for (auto f : w.fields()) {
    switch (amd_arg(f)) {
      case 82: {  // temperature.memory
        const Number n = w.number(F::TempMem);
        n.value ? w.set(f, milli_degrees_to_c(*n.value)) : w.fail(f, n.error);
        break;
      }
      case 185:    // power.draw.average
      case 186: {  // power.draw.instant
        const Number n = w.number(amd_arg(f) == 185 ? F::PowerAverage : F::PowerInput);
        n.value ? w.set(f, micro_to_base(*n.value)) : w.fail(f, n.error);
        break;
      }
      default: w.unsupported(f); break;
    }
  }
}

void read_thresholds(CardWriter& w) {
  for (auto f : w.fields()) {
    Number n;
    switch (amd_arg(f)) {
      case 0: n = w.first_number({F::TempEdgeEmergency, F::TempJunctionEmergency}); break;  // shutdown
      case 1: n = w.first_number({F::TempEdgeCrit, F::TempJunctionCrit}); break;            // slowdown
      case 2: n = w.number(F::TempMemCrit); break;                                          // memory max operating
      default: w.unsupported(f); continue;
    }
    n.value ? w.set(f, milli_degrees_to_c(*n.value)) : w.fail(f, n.error);
  }
}

void read_clocks(CardWriter& w, bool max) {
  bool need_sclk = false, need_mclk = false;
  for (auto f : w.fields()) {
    const int a = amd_arg(f);
    need_sclk = need_sclk || a == 0 || a == 1;
    need_mclk = need_mclk || a == 2;
  }
  const auto levels = [&](CardFile file, core::ReadError* error) -> DpmLevels {
    FileBuffer<512> buf;
    read_file(w.card().path(file), buf);
    if (!buf.ok()) {
      *error = w.file_error(buf.error);
      return {};
    }
    DpmLevels l = parse_dpm_levels(buf.text());
    *error = error_from_errno(EBADMSG);
    return l;
  };
  core::ReadError sclk_error, mclk_error;
  const DpmLevels sclk = need_sclk ? levels(F::DpmSclk, &sclk_error) : DpmLevels{};
  const DpmLevels mclk = need_mclk ? levels(F::DpmMclk, &mclk_error) : DpmLevels{};
  std::optional<std::uint64_t> sclk_now = sclk.current_mhz;
  if (!max && need_sclk && !sclk_now) {  // no level marked: the firmware's own current gfxclk
    core::ReadError error;
    const auto m = w.metrics(&error);
    if (m && m->gfxclk_mhz) sclk_now = m->gfxclk_mhz;
  }
  for (auto f : w.fields()) {
    const int a = amd_arg(f);
    if (a == 3) {
      w.unsupported(f);  // video clock: not in pp_dpm_*
      continue;
    }
    const bool is_sclk = a != 2;
    const std::optional<std::uint64_t> mhz =
        is_sclk ? (max ? sclk.max_mhz : sclk_now) : (max ? mclk.max_mhz : mclk.current_mhz);
    mhz ? w.set(f, *mhz * kHzPerMHz) : w.fail(f, is_sclk ? sclk_error : mclk_error);
  }
}

void read_total_energy(CardWriter& w) {
  const Number uj = w.number(F::EnergyInput);
  std::optional<double> joules;
  core::ReadError error = uj.error;
  if (uj.value) {
    joules = micro_to_base(*uj.value);
  } else {
    const auto m = w.metrics(&error);
    if (m && m->energy_j) joules = m->energy_j;
    if (m && !m->energy_j) error = uj.error;
  }
  for (auto f : w.fields()) joules ? w.set(f, *joules) : w.fail(f, error);
}

void read_num_fans(CardWriter& w) {
  const Number rpm = w.number(F::FanInput);
  const Number pwm = rpm.value ? rpm : w.number(F::Pwm);
  for (auto f : w.fields()) pwm.value ? w.set(f, std::uint64_t{1}) : w.fail(f, pwm.error);
}

void read_power_constraints(CardWriter& w) {
  for (auto f : w.fields()) {
    const Number n = w.number(amd_arg(f) == 0 ? F::PowerCapMin : F::PowerCapMax);
    n.value ? w.set(f, micro_to_base(*n.value)) : w.fail(f, n.error);
  }
}

}  // namespace

core::ReadError read_card_source(const AmdCard& card, core::Source source,
                                 std::span<const core::FieldId> fields, core::DeviceSnapshot& device) {
  CardWriter w(card, fields, device);
  const auto micro = [](std::int64_t v) { return FieldValue{micro_to_base(v)}; };
  const auto count = [](std::int64_t v) { return FieldValue{non_negative(v)}; };
  switch (source) {
    case Source::Name: read_name(w); break;
    case Source::Serial: read_text_group(w, F::SerialNumber); break;
    case Source::Uuid: read_uuid(w); break;
    case Source::PciInfo: read_pci_info(w); break;
    case Source::Index:  // the global index the sampler set (a mixed node's AMD GPUs come after others)
      for (auto f : fields) w.set(f, std::uint64_t{device.index});
      break;
    case Source::MinorNumber:
      for (auto f : fields) w.set(f, std::uint64_t{card.card_number});
      break;
    case Source::PcieCurrGen: read_link_generation(w, F::CurrentLinkSpeed); break;
    case Source::PcieMaxGen:
    case Source::PcieGpuMaxGen: read_link_generation(w, F::MaxLinkSpeed); break;
    case Source::PcieCurrWidth: read_number_group(w, F::CurrentLinkWidth, count); break;
    case Source::PcieMaxWidth: read_number_group(w, F::MaxLinkWidth, count); break;
    case Source::FanSpeed: read_fan_speed(w); break;
    case Source::NumFans: read_num_fans(w); break;
    case Source::ClocksEventReasons: read_event_reasons(w); break;
    case Source::MemoryInfo: read_memory(w); break;
    case Source::UtilizationRates: read_utilization(w); break;
    case Source::TotalEccErrors: read_total_ecc(w); break;
    case Source::MemoryErrorCounter: read_memory_error_counter(w); break;
    case Source::Temperature: {
      const Number n = w.first_number({F::TempEdge, F::TempJunction});
      for (auto f : fields) n.value ? w.set(f, milli_degrees_to_c(*n.value)) : w.fail(f, n.error);
      break;
    }
    case Source::FieldValues: read_field_values(w); break;
    case Source::PowerUsage: {
      const Number n = w.first_number({F::PowerAverage, F::PowerInput});
      for (auto f : fields) n.value ? w.set(f, micro_to_base(*n.value)) : w.fail(f, n.error);
      break;
    }
    case Source::PowerLimit:
    case Source::EnforcedPowerLimit: read_number_group(w, F::PowerCap, micro); break;
    case Source::PowerDefaultLimit: read_number_group(w, F::PowerCapDefault, micro); break;
    case Source::PowerLimitConstraints: read_power_constraints(w); break;
    case Source::ClockInfo: read_clocks(w, false); break;
    case Source::MaxClockInfo: read_clocks(w, true); break;
    case Source::TemperatureThreshold: read_thresholds(w); break;
    case Source::TotalEnergy: read_total_energy(w); break;
    case Source::PcieReplayCounter: read_number_group(w, F::PcieReplayCount, count); break;
    case Source::BoardPartNumber: read_text_group(w, F::ProductNumber); break;
    case Source::Gpm:           // profiling metrics: none on AMD's files (no profiling reader values)
    case Source::SampleBuffer:  // the driver's sample buffer: none either
      w.not_read_all();
      break;
    default: w.unsupported_all(); break;  // everything else has no amdgpu file: "[N/A]"
  }
  return w.worst();
}

}  // namespace gpuwatch::amd
