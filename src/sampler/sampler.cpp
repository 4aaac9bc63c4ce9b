#include "sampler/sampler.hpp"

#include <algorithm>
#include <array>

#include "core/field_table.hpp"
#include "sampler/sanity_rules.hpp"

namespace gpuwatch::sampler {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

bool any_cached(const std::vector<std::optional<FieldReading>>& cache, const std::vector<FieldId>& fields) {
  for (auto f : fields) {
    if (cache[index_of(f)].has_value()) return true;
  }
  return false;
}

bool cacheable(const FieldReading& r) {
  return r.status == FieldStatus::NotSupported || r.status == FieldStatus::FunctionMissing;
}

void fill_system_fields(const core::Snapshot& snap, const std::vector<FieldId>& fields, core::ReadError driver_error,
                        core::DeviceSnapshot& d) {
  for (auto f : fields) {
    const auto& info = core::field_info(f);
    if (info.source != core::Source::System) continue;
    switch (info.arg) {
      case 0: {
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(snap.timestamp.time_since_epoch()).count();
        d.get(f) = FieldReading::of(static_cast<double>(us) / 1e6);
        break;
      }
      case 1:
        d.get(f) = snap.driver_version ? FieldReading::of(*snap.driver_version)
                                       : FieldReading::absent(FieldStatus::Failed, driver_error);
        break;
      case 3: d.get(f) = FieldReading::of(std::string(core::to_string(d.vendor))); break;  // vendor
      default: d.get(f) = FieldReading::of(std::uint64_t{snap.device_count}); break;
    }
  }
}

// A reading worth keeping until the next slow sample: a value, or a cached NotSupported.
bool settled(const FieldReading& r) { return r.ok() || cacheable(r); }

}  // namespace

bool is_slow_source(core::Source source) {
  using S = core::Source;
  switch (source) {
    case S::Name: case S::Serial: case S::Uuid: case S::PciInfo: case S::Index: case S::MinorNumber:
    case S::PcieMaxGen: case S::PcieGpuMaxGen: case S::PcieMaxWidth:
    case S::VbiosVersion: case S::InforomImage: case S::InforomVersion:
    case S::CudaComputeCapability: case S::Brand: case S::Architecture: case S::NumGpuCores:
    case S::BoardPartNumber: case S::NumFans:
    case S::MaxClockInfo: case S::DefaultApplicationsClock: case S::TemperatureThreshold:
    case S::PowerLimit: case S::EnforcedPowerLimit: case S::PowerDefaultLimit: case S::PowerLimitConstraints:
    case S::EccMode: case S::TotalEccErrors: case S::MemoryErrorCounter:
    case S::RetiredPages: case S::RetiredPagesPending: case S::RemappedRows: case S::RowRemapperHistogram:
      return true;
    default:
      return false;
  }
}

const std::vector<FieldId>& claimed_fields() {
  static const std::vector<FieldId> claimed = [] {
    std::vector<FieldId> out;
    for (const auto& f : core::field_table()) {
      if (f.claimed) out.push_back(f.id);
    }
    return out;
  }();
  return claimed;
}

void Sampler::note_error(core::ReadError error) {
  if (error.vendor_code != 0 && !error_strings_.count(error.vendor_code)) {
    error_strings_[error.vendor_code] = backend_.error_text(error);
  }
}

void Sampler::plan(const std::vector<FieldId>& fields) {
  if (fields == planned_fields_ && !fields.empty()) return;
  planned_fields_ = fields;
  groups_.clear();
  system_fields_.clear();
  std::array<std::vector<FieldId>, core::kSourceCount> by_source;
  for (auto f : fields) {
    const auto& info = core::field_info(f);
    if (info.source == core::Source::System) {
      system_fields_.push_back(f);
    } else {
      by_source[static_cast<std::size_t>(info.source)].push_back(f);
    }
  }
  for (std::size_t s = 0; s < by_source.size(); ++s) {
    if (!by_source[s].empty()) groups_.push_back(SourceGroup{static_cast<core::Source>(s), std::move(by_source[s])});
  }
}

std::size_t Sampler::cached_unsupported_count() const {
  std::size_t n = 0;
  for (const auto& mem : devices_) {
    for (const auto& r : mem.unsupported) n += r.has_value() ? 1 : 0;
  }
  return n;
}

backend::DeviceHandle Sampler::handle_of(unsigned index) const {
  return index < devices_.size() ? devices_[index].handle : backend::DeviceHandle{};
}

std::optional<std::chrono::system_clock::time_point> Sampler::slow_fields_read_at(unsigned index) const {
  return index < devices_.size() ? devices_[index].slow_read_at : std::nullopt;
}

Sampler::DeviceMemory& Sampler::memory(unsigned index) {
  if (devices_.size() <= index) devices_.resize(index + 1);
  DeviceMemory& mem = devices_[index];
  if (mem.unsupported.empty()) mem.unsupported.resize(core::kFieldCount);
  return mem;
}

void Sampler::mark_lost(DeviceMemory& mem, core::DeviceSnapshot& device, core::ReadError error) {
  note_error(error);
  mem.slow_wait = 0;  // every slow field again once it answers
  device.state = core::DeviceState::Lost;
  device.error = error;
  mem.backoff = mem.backoff == std::chrono::steady_clock::duration{}
                    ? std::chrono::steady_clock::duration(kLostBackoffFirst)
                    : std::min<std::chrono::steady_clock::duration>(mem.backoff * 2, kLostBackoffMax);
  mem.retry_at = now_() + mem.backoff;
}

void Sampler::sample_device(unsigned index, const SampleOptions& options, core::DeviceSnapshot& device) {
  device.index = index;
  device.vendor = backend_.vendor_of(index);
  DeviceMemory& mem = memory(index);
  auto fail_all = [&](core::ReadError error, std::size_t from_group) {
    for (std::size_t g = from_group; g < groups_.size(); ++g) {
      for (auto f : groups_[g].fields) device.get(f) = FieldReading::absent(FieldStatus::Failed, error);
    }
  };
  if (mem.backoff != std::chrono::steady_clock::duration{} && now_() < mem.retry_at) {
    mem.handle = {};
    mem.slow_wait = 0;
    const core::ReadError lost = backend_.error_of(core::ErrorReason::GpuLost);
    device.state = core::DeviceState::Lost;  // still backing off: no driver call
    device.error = lost;
    note_error(lost);
    return fail_all(lost, 0);
  }
  backend::DeviceHandle dev;
  core::ReadError rc = backend_.handle_by_index(index, &dev);
  mem.handle = rc.ok() ? dev : backend::DeviceHandle{};
  if (!rc.ok()) {
    if (rc.reason == core::ErrorReason::GpuLost) {
      mark_lost(mem, device, rc);
    } else {
      note_error(rc);
      device.state = core::DeviceState::Inaccessible;
      device.error = rc;
    }
    mem.slow_wait = 0;
    return fail_all(rc, 0);
  }

  auto& cache = mem.unsupported;
  std::vector<FieldId> uncached;
  const bool slow_due = options.slow_every <= 1 || mem.slow_wait == 0;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const SourceGroup& group = groups_[g];
    // A slow source between its samples keeps its readings, when they are settled.
    if (!slow_due && is_slow_source(group.source) &&
        std::all_of(group.fields.begin(), group.fields.end(), [&](FieldId f) { return settled(device.get(f)); })) {
      continue;
    }
    // Fields cached as unsupported are not asked again (STYLE rule 8).
    const std::vector<FieldId>* wanted = &group.fields;
    if (mem.any_unsupported && any_cached(cache, group.fields)) {
      uncached.clear();
      for (auto f : group.fields) {
        if (cache[index_of(f)]) {
          device.get(f) = *cache[index_of(f)];
        } else {
          uncached.push_back(f);
        }
      }
      if (uncached.empty()) continue;
      wanted = &uncached;
    }
    rc = dev.owner->read_source(dev, group.source, *wanted, device);  // the device's own backend: one hop
    if (rc.reason == core::ErrorReason::GpuLost) {
      mark_lost(mem, device, rc);
      return fail_all(rc, g + 1);  // nothing more from this GPU; the others go on
    }
    if (!rc.ok()) {
      for (auto f : *wanted) {
        const FieldReading& r = device.get(f);
        note_error(r.error());
        if (cacheable(r)) {
          cache[index_of(f)] = r;
          mem.any_unsupported = true;
        }
      }
    }
  }
  if (options.processes) {
    rc = dev.owner->read_processes(dev, options.process_utilization ? &mem.utilization_since_us : nullptr, device);
    note_error(device.processes_error);
    if (rc.reason == core::ErrorReason::GpuLost) return mark_lost(mem, device, rc);
  }
  mem.backoff = {};  // answered: not (or no longer) lost
  if (slow_due) {
    mem.slow_wait = options.slow_every > 1 ? options.slow_every - 1 : 0;
    mem.slow_read_at = sampled_at_;
  } else {
    --mem.slow_wait;
  }
  apply_sanity_rules(device);
}

core::Snapshot Sampler::sample(const SampleOptions& options) {
  core::Snapshot snap;
  sample_into(options, snap);
  return snap;
}

void Sampler::sample_into(const SampleOptions& options, core::Snapshot& snap) {
  snap.timestamp = std::chrono::system_clock::now();
  sampled_at_ = snap.timestamp;
  snap.driver_version.reset();
  snap.cuda_driver_version.reset();
  const std::vector<FieldId>& fields = options.fields.empty() ? claimed_fields() : options.fields;
  const bool same_plan = !planned_fields_.empty() && fields == planned_fields_;
  plan(fields);

  unsigned count = 0;
  snap.device_count = backend_.device_count(&count).ok() ? count : 0;
  core::ReadError driver_error;
  if (!system_fields_.empty() &&
      std::find(system_fields_.begin(), system_fields_.end(), FieldId::DriverVersion) != system_fields_.end()) {
    if (!snap.driver_version) snap.driver_version.emplace();
    driver_error = backend_.driver_version(*snap.driver_version);
    if (!driver_error.ok()) snap.driver_version.reset();
    // The CUDA version the driver supports (status's header) comes with the driver
    // version; it cannot change while the library is loaded, so one success is kept.
    if (!cuda_driver_version_) {
      int cuda = 0;
      if (backend_.cuda_driver_version(&cuda).ok() && cuda > 0) cuda_driver_version_ = cuda;
    }
    snap.cuda_driver_version = cuda_driver_version_;
  }

  std::vector<unsigned> all;
  if (options.devices.empty()) {
    for (unsigned i = 0; i < snap.device_count; ++i) all.push_back(i);
  }
  const std::vector<unsigned>& indices = options.devices.empty() ? all : options.devices;
  snap.devices.resize(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    core::DeviceSnapshot& device = snap.devices[i];
    device.state = core::DeviceState::Ok;
    device.error = {};
    device.processes.clear();
    device.processes_status = FieldStatus::NotRead;
    device.processes_error = {};
    // With the same plan every wanted field is rewritten below; otherwise start clean.
    if (!same_plan) std::fill(device.readings.begin(), device.readings.end(), FieldReading{});
    sample_device(indices[i], options, device);
    fill_system_fields(snap, system_fields_, driver_error, device);
  }
  // Every vendor code behind a reading gets the backend's text (asked once per code).
  if (snap.error_strings.size() != error_strings_.size()) snap.error_strings = error_strings_;
}

core::Snapshot sample(const backend::DeviceBackend& backend, const SampleOptions& options) {
  Sampler sampler(backend);
  return sampler.sample(options);
}

}  // namespace gpuwatch::sampler
