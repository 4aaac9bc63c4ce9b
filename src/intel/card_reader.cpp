// IntelBackend::read_source (declared in intel_backend.hpp): the field table's read groups from
// one card's files and, where they lack it, Level Zero; NVML's meanings, the core's base units.
#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "core/field_table.hpp"
#include "intel/intel_backend.hpp"
#include "intel/intel_errors.hpp"
#include "intel/sysfs_file.hpp"

namespace gpuwatch::intel {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;
using core::FieldValue;
using core::Source;

constexpr std::uint64_t kHzPerMhz = 1000000;
constexpr double kWattsPerMicrowatt = 1e-6;
constexpr double kJoulesPerMicrojoule = 1e-6;
constexpr double kCelsiusPerMilli = 1e-3;
// Energy readings closer together than this keep the previous power (two samplers at once; the
// simulated tree re-renders its files at most every 100 ms).
constexpr double kMinPowerInterval = 0.12;

// Writes one source's readings and keeps the first failure (what read_source returns).
struct CardWriter {
  std::span<const FieldId> fields;
  core::DeviceSnapshot& device;
  core::ReadError worst;

  void set(FieldId f, FieldValue v) { device.get(f) = FieldReading::of(std::move(v)); }
  void fail(FieldId f, core::ReadError e) {
    device.get(f) = FieldReading::absent(status_of(e), e);
    if (worst.ok() || e.reason == core::ErrorReason::GpuLost) worst = e;
  }
  void unsupported(FieldId f) { fail(f, intel_error_of(core::ErrorReason::NotSupported)); }
  // Not a value at this moment, though the GPU has it (a rate's first reading): "[N/A]", not cached.
  void not_yet(FieldId f) { device.get(f) = FieldReading::absent(FieldStatus::NotApplicable); }
  template <typename T>
  void from_file(FieldId f, const FileValue<T>& v, double scale = 1.0) {
    if (!v.value) return fail(f, error_from_errno(v.error));
    if (scale == 1.0) {
      set(f, static_cast<std::uint64_t>(*v.value));
    } else {
      set(f, static_cast<double>(*v.value) * scale);
    }
  }
};

int arg_of(FieldId f) { return core::field_info(f).arg; }

FileValue<std::uint64_t> number_at(const std::string& path) {
  if (path.empty()) return {std::nullopt, ENOENT};
  return read_number_file(path);
}

std::string name_of(const IntelBackend::Device& dev) {
  if (dev.sysman != nullptr && !dev.sysman->name.empty()) return dev.sysman->name;
  switch (dev.card.device_id) {
    case 0x0bd5: return "Intel Data Center GPU Max 1550";
    case 0x56a0: return "Intel Arc A770 Graphics";
    default: return fmt::format("Intel GPU [{:04x}:{:04x}]", dev.card.vendor_id, dev.card.device_id);
  }
}

void read_pci(CardWriter& w, const IntelCard& card) {
  for (auto f : w.fields) {
    switch (arg_of(f)) {
      case 0: w.set(f, nvml_bus_id(card.address)); break;
      case 1: w.set(f, std::uint64_t{card.address.domain}); break;
      case 2: w.set(f, std::uint64_t{card.address.bus}); break;
      case 3: w.set(f, std::uint64_t{card.address.device}); break;
      case 4: w.set(f, (std::uint64_t{card.device_id} << 16) | card.vendor_id); break;  // NVML's layout
      default: w.unsupported(f); break;
    }
  }
}

void read_clocks(CardWriter& w, const std::string& path) {
  std::optional<FileValue<std::uint64_t>> mhz;
  for (auto f : w.fields) {
    if (arg_of(f) > 1) {  // graphics and SM share the GT clock; no memory or video clock
      w.unsupported(f);
      continue;
    }
    if (!mhz) mhz = number_at(path);
    if (!mhz->value) {
      w.fail(f, error_from_errno(mhz->error));
    } else {
      w.set(f, *mhz->value * kHzPerMhz);
    }
  }
}

}  // namespace

std::optional<double> CounterRate::update(std::uint64_t value, double at, double min_interval_s) {
  if (!last || value < *last || at < last_at) {
    last = value;
    last_at = at;
    rate.reset();
    return rate;
  }
  if (at - last_at < min_interval_s) return rate;
  rate = static_cast<double>(value - *last) / (at - last_at);
  last = value;
  last_at = at;
  return rate;
}

core::ReadError IntelBackend::read_source(backend::DeviceHandle handle, core::Source source,
                                          std::span<const core::FieldId> fields, core::DeviceSnapshot& device) const {
  if (simulated_tree_) simulated_tree_->refresh();
  const Device& dev = *static_cast<const Device*>(handle.raw);
  if (source == Source::PowerUsage || source == Source::UtilizationRates) await_baselines();
  const IntelCard& card = dev.card;
  const SysmanFunctions& ze = level_zero_.functions;
  CardWriter w{fields, device, {}};
  switch (source) {
    case Source::Name:
      for (auto f : fields) w.set(f, name_of(dev));
      break;
    case Source::Uuid:
      for (auto f : fields) {
        w.set(f, dev.sysman != nullptr && !dev.sysman->uuid.empty() ? dev.sysman->uuid : "INTEL-" + card.slot);
      }
      break;
    case Source::Serial:
      for (auto f : fields) {
        if (dev.sysman != nullptr && !dev.sysman->serial.empty()) {
          w.set(f, dev.sysman->serial);
        } else {
          w.unsupported(f);
        }
      }
      break;
    case Source::PciInfo: read_pci(w, card); break;
    case Source::Index:
      for (auto f : fields) w.set(f, std::uint64_t{device.index});
      break;
    case Source::NumFans:
      for (auto f : fields) card.fan_count > 0 ? w.set(f, std::uint64_t{card.fan_count}) : w.unsupported(f);
      break;
    case Source::ClockInfo: read_clocks(w, card.act_freq); break;
    case Source::MaxClockInfo: read_clocks(w, card.rp0_freq); break;
    case Source::PowerLimit:
    case Source::EnforcedPowerLimit: {
      const auto uw = number_at(card.power_max);
      for (auto f : fields) w.from_file(f, uw, kWattsPerMicrowatt);
      break;
    }
    case Source::PowerDefaultLimit: {
      const auto uw = number_at(card.power_rated_max);
      for (auto f : fields) w.from_file(f, uw, kWattsPerMicrowatt);
      break;
    }
    case Source::TotalEnergy: {
      if (card.energy.empty() && dev.sysman != nullptr && dev.sysman->power != nullptr) {
        zes_power_energy_counter_t c{};
        const ze_result_t rc = read_sysman_energy(ze, *dev.sysman, &c);
        for (auto f : fields) {
          rc == ZE_RESULT_SUCCESS ? w.set(f, static_cast<double>(c.energy) * kJoulesPerMicrojoule)
                                  : w.fail(f, error_from_ze(rc));
        }
        break;
      }
      const auto uj = number_at(card.energy);
      for (auto f : fields) w.from_file(f, uj, kJoulesPerMicrojoule);
      break;
    }
    case Source::PowerUsage: {
      std::lock_guard lock(dev.state.mutex);
      std::optional<double> watts;
      core::ReadError error;
      if (!card.energy.empty()) {
        const auto uj = read_number_file(card.energy);
        if (uj.value) {
          const double at = clock_seconds();
          // The simulated tree writes its counters on the wall clock too (vendor_contract.md).
          watts = dev.state.energy_uj.update(*uj.value, at, kMinPowerInterval);
          if (watts) *watts *= kWattsPerMicrowatt;
        } else {
          error = error_from_errno(uj.error);
        }
      } else if (dev.sysman != nullptr && dev.sysman->power != nullptr) {
        zes_power_energy_counter_t c{};
        const ze_result_t rc = read_sysman_energy(ze, *dev.sysman, &c);
        if (rc != ZE_RESULT_SUCCESS) {
          error = error_from_ze(rc);
        } else {
          auto& before = dev.state.sysman_energy;
          if (before && c.timestamp > before->timestamp && c.energy >= before->energy) {
            dev.state.sysman_power_w = static_cast<double>(c.energy - before->energy) /
                                       static_cast<double>(c.timestamp - before->timestamp);  // µJ/µs = W
            before = c;
          } else if (!before || c.energy < before->energy || c.timestamp < before->timestamp) {
            dev.state.sysman_power_w.reset();
            before = c;
          }
          watts = dev.state.sysman_power_w;
        }
      } else {
        error = intel_error_of(core::ErrorReason::NotSupported);
      }
      for (auto f : fields) {
        if (!error.ok()) {
          w.fail(f, error);
        } else if (watts) {
          w.set(f, *watts);
        } else {
          w.not_yet(f);
        }
      }
      break;
    }
    case Source::Temperature: {
      if (!card.temperature.empty()) {
        const auto mc = read_signed_file(card.temperature);
        for (auto f : fields) {
          mc.value ? w.set(f, static_cast<std::int64_t>(std::llround(static_cast<double>(*mc.value) * kCelsiusPerMilli)))
                   : w.fail(f, error_from_errno(mc.error));
        }
        break;
      }
      double c = 0;
      const ze_result_t rc = dev.sysman != nullptr ? read_sysman_temperature(ze, dev.sysman->gpu_sensors, &c)
                                                   : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
      for (auto f : fields) {
        rc == ZE_RESULT_SUCCESS ? w.set(f, static_cast<std::int64_t>(std::llround(c))) : w.fail(f, error_from_ze(rc));
      }
      break;
    }
    case Source::FieldValues:
      for (auto f : fields) {
        if (f != FieldId::TemperatureMemory) {
          w.unsupported(f);
          continue;
        }
        double c = 0;
        const ze_result_t rc = dev.sysman != nullptr ? read_sysman_temperature(ze, dev.sysman->memory_sensors, &c)
                                                     : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        rc == ZE_RESULT_SUCCESS ? w.set(f, static_cast<std::int64_t>(std::llround(c))) : w.fail(f, error_from_ze(rc));
      }
      break;
    case Source::MemoryInfo: {
      SysmanMemory m;
      const ze_result_t rc =
          dev.sysman != nullptr ? read_sysman_memory(ze, *dev.sysman, &m) : ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
      if (rc == ZE_RESULT_SUCCESS) {
        for (auto f : fields) {
          switch (arg_of(f)) {
            case 0: w.set(f, m.total); break;
            case 2: w.set(f, m.used); break;
            case 3: w.set(f, m.total - std::min(m.used, m.total)); break;
            default: w.unsupported(f); break;
          }
        }
        break;
      }
      // No Level Zero: what the DRM clients hold (drm-total-local0 / drm-total-vram0), used only.
      std::lock_guard lock(dev.state.mutex);
      const auto scan = fold_drm_usage(dev);
      std::optional<std::uint64_t> used;
      for (const auto& [key, client] : dev.state.usage.clients) {
        if (client.memory_bytes) used = used.value_or(0) + *client.memory_bytes;
      }
      if (!used && scan->complete) used = 0;  // no client holds device memory
      for (auto f : fields) {
        if (arg_of(f) != 2) {
          w.unsupported(f);
        } else if (!scan->complete) {
          w.fail(f, error_from_errno(scan->error));
        } else {
          w.set(f, *used);
        }
      }
      break;
    }
    case Source::UtilizationRates: {
      std::optional<double> ratio;
      core::ReadError error;
      bool from_sysman = false;
      if (dev.sysman != nullptr && !dev.sysman->engines.empty()) {
        from_sysman = true;
        std::lock_guard lock(dev.state.mutex);
        EngineCounters now;
        const ze_result_t rc = read_sysman_engines(ze, *dev.sysman, &now);
        if (rc != ZE_RESULT_SUCCESS) {
          error = error_from_ze(rc);
        } else {
          if (dev.state.engines) {
            if (auto r = engine_utilization(*dev.state.engines, now)) dev.state.engine_ratio = r;
          }
          dev.state.engines = std::move(now);
          ratio = dev.state.engine_ratio;
        }
      }
      if (!from_sysman) {
        std::lock_guard lock(dev.state.mutex);
        const auto scan = fold_drm_usage(dev);
        if (!scan->complete) {
          error = error_from_errno(scan->error);
        } else {
          ratio = dev.state.usage.device_ratio;
        }
      }
      for (auto f : fields) {
        if (arg_of(f) != 0) {
          w.unsupported(f);  // no memory-controller activity
        } else if (!error.ok()) {
          w.fail(f, error);
        } else if (ratio) {
          w.set(f, *ratio);
        } else {
          w.not_yet(f);
        }
      }
      break;
    }
    case Source::Gpm:
    case Source::SampleBuffer:
      for (auto f : fields) device.get(f) = FieldReading::absent(FieldStatus::NotRead);
      break;
    default:
      for (auto f : fields) w.unsupported(f);
      break;
  }
  if (!w.worst.ok() && !path_exists(card.card_dir + "/device/uevent")) {
    const core::ReadError lost = error_from_errno(ENODEV);
    for (auto f : fields) w.fail(f, lost);
    w.worst = lost;
  }
  return noted(w.worst);
}

}  // namespace gpuwatch::intel
