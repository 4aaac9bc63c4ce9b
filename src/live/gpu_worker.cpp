// One GPU's sample in the Collector (collector.cpp runs it on a thread): NVML, its processes' users
// and /proc readings, who owns it, the on_sample hook, then publishing it under the collector's lock.
#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

#include "attribution/snapshot_processes.hpp"
#include "live/collector_shared.hpp"

namespace gpuwatch::live {
namespace {

// How often each GPU thread reads /proc for its processes (CollectorOptions::process_info_of).
constexpr std::chrono::milliseconds kProcessInfoEvery{2000};

void count_errors(const core::DeviceSnapshot& device, std::map<std::pair<std::string, int>, std::uint64_t>& errors) {
  if (device.state != core::DeviceState::Ok) {
    ++errors[{"device", device.error.vendor_code}];
    return;
  }
  for (std::size_t f = 0; f < device.readings.size(); ++f) {
    const core::FieldReading& r = device.readings[f];
    if (r.status == core::FieldStatus::Failed || r.status == core::FieldStatus::NoPermission) {
      ++errors[{std::string(core::field_table()[f].name), r.vendor_code}];
    }
  }
}

}  // namespace

GpuWorker::GpuWorker(const backend::DeviceBackend& backend, const CollectorOptions& options, unsigned index)
    : options_(options), index_(index), sampler_(backend), profiling_(backend, index), identity_(identity_fields()),
      // Not integrated across a gap longer than the collector calls a sample stale (the Collector
      // has filled in its default before any worker is made).
      energy_(options.stale_after) {
  sample_options_.fields =
      options.fields;
  for (core::FieldId f : options.extra_fields) {
    if (std::find(sample_options_.fields.begin(), sample_options_.fields.end(), f) == sample_options_.fields.end()) {
      sample_options_.fields.push_back(f);
    }
  }
  sample_options_.devices = {index};
  sample_options_.processes = true;  // gpuwatch_processes always; per-process series only when asked
  sample_options_.process_utilization = options.processes || static_cast<bool>(options.process_info_of);
  sample_options_.slow_every = options.slow_every;
}

void GpuWorker::sample(Steady::time_point scheduled) {
  started_ = Steady::now();
  sampler_.sample_into(sample_options_, local_);
  if (!local_.devices.empty()) profiling_.sample(local_.devices.front(), sampler_.handle_of(index_));
  duration_ = std::chrono::duration<double>(Steady::now() - started_).count();
  if (!local_.devices.empty()) {
    const core::DeviceSnapshot& device = local_.devices.front();
    energy_.add(started_, device.state == core::DeviceState::Ok ? device.get(core::FieldId::PowerDraw).as_double()
                                                                 : std::nullopt);
  }

  users_.clear();
  if (options_.processes && options_.user_of && !local_.devices.empty()) {
    std::map<std::uint32_t, std::optional<std::string>> kept;
    for (const auto& p : local_.devices.front().processes) {
      auto found = user_cache_.find(p.pid);
      auto user = found != user_cache_.end() ? found->second : options_.user_of(p.pid);
      kept[p.pid] = user;
      if (user) users_[p.pid] = *user;
    }
    user_cache_.swap(kept);
  }

  process_info_.clear();
  if (options_.process_info_of && !local_.devices.empty()) {
    std::set<unsigned> seen;
    for (const auto& p : local_.devices.front().processes) {
      if (!seen.insert(p.pid).second) continue;  // a process with several contexts on the GPU
      // /proc is read again at most every kProcessInfoEvery (user names can cost an NSS lookup).
      auto cached = info_cache_.find(p.pid);
      if (cached == info_cache_.end() || started_ - cached->second.read_at >= kProcessInfoEvery) {
        host::ProcessInfo info = options_.process_info_of(p.pid);
        cpu_.update(p.pid, info);
        cached = info_cache_.insert_or_assign(p.pid, CachedInfo{std::move(info), started_}).first;
      }
      const host::ProcessInfo& info = cached->second.info;
      if (info.user && !users_.count(p.pid)) users_[p.pid] = *info.user;
      process_info_[p.pid] = info;
    }
    cpu_.retain(seen);
    for (auto it = info_cache_.begin(); it != info_cache_.end();) it = seen.count(it->first) ? std::next(it) : info_cache_.erase(it);
  }

  owners_.reset();  // none: the slot keeps the last
  if (options_.attributor && !local_.devices.empty()) {
    // Again when the GPU's processes change, else at most every attribute_every (its /proc checks).
    std::vector<std::uint32_t> pids;
    for (const auto& p : local_.devices.front().processes) pids.push_back(p.pid);
    std::sort(pids.begin(), pids.end());
    if (options_.attribute_every.count() <= 0 || pids != attributed_pids_ || !attributed_at_ ||
        started_ - *attributed_at_ >= options_.attribute_every) {
      owners_ = attribution::attribute_device(*options_.attributor, local_.devices.front());
      attributed_pids_ = std::move(pids);
      attributed_at_ = started_;
    }
  }

  if (options_.on_sample && !local_.devices.empty()) {
    // With catch_up, a late sample says the tick it stands for, so the GPUs of one tick stay together.
    const auto late = std::chrono::duration_cast<std::chrono::system_clock::duration>(started_ - scheduled);
    options_.on_sample(local_.devices.front(), options_.catch_up ? local_.timestamp - late : local_.timestamp);
  }
}

void GpuWorker::publish(Collector::Shared& shared) {
  if (!local_.devices.empty()) {
    core::DeviceSnapshot& slot_device = shared.latest.devices[index_];
    if (local_.devices.front().state != core::DeviceState::Ok) {
      for (auto id : identity_) {
        if (slot_device.get(id).ok()) local_.devices.front().get(id) = slot_device.get(id);
      }
    }
    count_errors(local_.devices.front(), shared.errors);
    slot_device = local_.devices.front();
    slot_device.index = index_;
  }
  // NVML's GPU count as this sample saw it (gpuwatch_gpus drops when a GPU disappears);
  // only from a sample whose GPU answered, so one failed count call does not read as 0.
  if (!local_.devices.empty() && local_.devices.front().state == core::DeviceState::Ok) {
    shared.latest.device_count = local_.device_count;
  }
  if (local_.driver_version) shared.latest.driver_version = local_.driver_version;
  if (local_.cuda_driver_version) shared.latest.cuda_driver_version = local_.cuda_driver_version;
  shared.latest.timestamp = local_.timestamp;
  // NVML's texts for the codes this sample met ("GPU is lost"), for the JSON API and the dashboard.
  for (const auto& [code, text] : local_.error_strings) shared.latest.error_strings.try_emplace(code, text);
  Slot& slot = shared.slots[index_];
  slot.has_sample = true;
  slot.started = started_;
  slot.duration_seconds = duration_;
  slot.estimated_energy_joules = energy_.joules();
  if (owners_) slot.owners = std::move(owners_);
  slot.users = std::move(users_);
  slot.process_info = std::move(process_info_);
  if (options_.history && !local_.devices.empty()) {
    options_.history->push(make_history_row(shared.latest.devices[index_], local_.timestamp));
  }
}

}  // namespace gpuwatch::live
