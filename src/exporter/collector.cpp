#include "exporter/collector.hpp"

#include "attribution/snapshot_processes.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "exporter/metric_list.hpp"
#include "sampler/profiling_sampler.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::exporter {

using Steady = std::chrono::steady_clock;

// What one GPU's thread last published.
struct Slot {
  bool has_sample = false;
  Steady::time_point started{};
  double duration_seconds = 0;
  std::map<std::uint32_t, std::string> users;
  std::map<std::uint32_t, host::ProcessInfo> process_info;  // CollectorOptions::process_info_of
  std::optional<attribution::DeviceOwners> owners;  // issue 15; absent: attribution off
};

struct Collector::Shared {
  mutable std::mutex mutex;
  std::condition_variable wake;      // stop requests
  std::condition_variable exited;    // a thread finished
  bool stopping = false;
  unsigned running = 0;
  core::Snapshot latest;             // devices[i] is GPU i
  std::vector<Slot> slots;
  std::map<std::pair<std::string, int>, std::uint64_t> errors;
  std::vector<std::thread> threads;
};

namespace {

// Identity fields a lost GPU keeps from its last good sample.
std::vector<core::FieldId> identity_fields() {
  std::vector<core::FieldId> ids = {core::FieldId::Uuid};
  for (const auto& label : info_labels()) ids.push_back(label.field);
  return ids;
}

// CollectorOptions::catch_up: how far behind the grid a GPU may fall before it skips ticks.
constexpr std::chrono::seconds kCatchUpLimit{1};

// How often each GPU thread reads /proc for its processes (CollectorOptions::process_info_of).
constexpr std::chrono::milliseconds kProcessInfoEvery{2000};

void count_errors(const core::DeviceSnapshot& device, std::map<std::pair<std::string, int>, std::uint64_t>& errors) {
  if (device.state != core::DeviceState::Ok) {
    ++errors[{"device", device.nvml_code}];
    return;
  }
  for (std::size_t f = 0; f < device.readings.size(); ++f) {
    const core::FieldReading& r = device.readings[f];
    if (r.status == core::FieldStatus::Failed || r.status == core::FieldStatus::NoPermission) {
      ++errors[{std::string(core::field_table()[f].name), r.nvml_code}];
    }
  }
}

void run_gpu(std::shared_ptr<Collector::Shared> shared, const nvml::NvmlApi& api, CollectorOptions options,
             unsigned index) {
  sampler::Sampler sampler(api);
  sampler::ProfilingSampler profiling(api);  // GPM activity and MIG devices (state between samples)
  sampler::SampleOptions sample_options;
  sample_options.fields = options.only_fields.empty() ? collected_fields(options.compat_nvidia_smi) : options.only_fields;
  for (core::FieldId f : options.extra_fields) {
    if (std::find(sample_options.fields.begin(), sample_options.fields.end(), f) == sample_options.fields.end()) {
      sample_options.fields.push_back(f);
    }
  }
  sample_options.devices = {index};
  sample_options.processes = true;  // gpuwatch_processes always; per-process series only when asked
  sample_options.process_utilization = options.processes || static_cast<bool>(options.process_info_of);
  const std::vector<core::FieldId> identity = identity_fields();
  core::Snapshot local;
  std::map<std::uint32_t, std::optional<std::string>> user_cache;
  host::CpuTracker cpu;  // CPU % of this GPU's processes between readings
  struct CachedInfo {
    host::ProcessInfo info;
    Steady::time_point read_at;
  };
  std::map<std::uint32_t, CachedInfo> info_cache;
  auto next = Steady::now();
  for (;;) {
    const auto scheduled = next;  // this sample's tick on the interval grid
    auto started = Steady::now();
    sampler.sample_into(sample_options, local);
    if (!local.devices.empty()) profiling.sample(local.devices.front(), sampler.handle_of(index));
    double duration = std::chrono::duration<double>(Steady::now() - started).count();

    std::map<std::uint32_t, std::string> users;
    if (options.processes && options.user_of && !local.devices.empty()) {
      std::map<std::uint32_t, std::optional<std::string>> kept;
      for (const auto& p : local.devices.front().processes) {
        auto found = user_cache.find(p.pid);
        auto user = found != user_cache.end() ? found->second : options.user_of(p.pid);
        kept[p.pid] = user;
        if (user) users[p.pid] = *user;
      }
      user_cache.swap(kept);
    }

    std::map<std::uint32_t, host::ProcessInfo> process_info;
    if (options.process_info_of && !local.devices.empty()) {
      std::set<unsigned> seen;
      for (const auto& p : local.devices.front().processes) {
        if (!seen.insert(p.pid).second) continue;  // a process with several contexts on the GPU
        // /proc is read again at most every kProcessInfoEvery (user names can cost an NSS lookup).
        auto cached = info_cache.find(p.pid);
        if (cached == info_cache.end() || started - cached->second.read_at >= kProcessInfoEvery) {
          host::ProcessInfo info = options.process_info_of(p.pid);
          cpu.update(p.pid, info);
          cached = info_cache.insert_or_assign(p.pid, CachedInfo{std::move(info), started}).first;
        }
        const host::ProcessInfo& info = cached->second.info;
        if (info.user && !users.count(p.pid)) users[p.pid] = *info.user;
        process_info[p.pid] = info;
      }
      cpu.retain(seen);
      for (auto it = info_cache.begin(); it != info_cache.end();) it = seen.count(it->first) ? std::next(it) : info_cache.erase(it);
    }

    std::optional<attribution::DeviceOwners> owners;
    if (options.attributor && !local.devices.empty()) owners = attribution::attribute_device(*options.attributor, local.devices.front());

    if (options.on_sample && !local.devices.empty()) {
      // With catch_up, a late sample says the tick it stands for, so the GPUs of one tick stay together.
      const auto late = std::chrono::duration_cast<std::chrono::system_clock::duration>(started - scheduled);
      options.on_sample(local.devices.front(), options.catch_up ? local.timestamp - late : local.timestamp);
    }

    std::unique_lock lock(shared->mutex);
    if (shared->stopping) break;
    if (!local.devices.empty()) {
      core::DeviceSnapshot& slot_device = shared->latest.devices[index];
      if (local.devices.front().state != core::DeviceState::Ok) {
        for (auto id : identity) {
          if (slot_device.get(id).ok()) local.devices.front().get(id) = slot_device.get(id);
        }
      }
      count_errors(local.devices.front(), shared->errors);
      slot_device = local.devices.front();
      slot_device.index = index;
    }
    // NVML's GPU count as this sample saw it (gpuwatch_gpus drops when a GPU disappears);
    // only from a sample whose GPU answered, so one failed count call does not read as 0.
    if (!local.devices.empty() && local.devices.front().state == core::DeviceState::Ok) {
      shared->latest.device_count = local.device_count;
    }
    if (local.driver_version) shared->latest.driver_version = local.driver_version;
    if (local.cuda_driver_version) shared->latest.cuda_driver_version = local.cuda_driver_version;
    shared->latest.timestamp = local.timestamp;
    // NVML's texts for the codes this sample met ("GPU is lost"), for the JSON API and the dashboard.
    for (const auto& [code, text] : local.error_strings) shared->latest.error_strings.try_emplace(code, text);
    Slot& slot = shared->slots[index];
    slot.has_sample = true;
    slot.started = started;
    slot.duration_seconds = duration;
    if (owners) slot.owners = std::move(owners);
    slot.users = std::move(users);
    slot.process_info = std::move(process_info);
    if (options.history && !local.devices.empty()) {
      options.history->push(make_history_row(shared->latest.devices[index], local.timestamp));
    }

    // The next tick on the interval grid (ticks missed by a slow sample are skipped; with
    // catch_up, late ticks are sampled at once, back to back, unless they are more than
    // kCatchUpLimit behind: a GPU that hung for a while rejoins the grid).
    auto now = Steady::now();
    next += options.interval;
    if (!options.catch_up || now - next > std::max<Steady::duration>(kCatchUpLimit, 2 * options.interval)) {
      while (next <= now) next += options.interval;
    }
    if (shared->wake.wait_until(lock, next, [&] { return shared->stopping; })) break;
  }
  std::lock_guard lock(shared->mutex);
  --shared->running;
  shared->exited.notify_all();
}

}  // namespace

Collector::Collector(const nvml::NvmlApi& api, CollectorOptions options)
    : api_(api), options_(std::move(options)), shared_(std::make_shared<Shared>()) {
  if (options_.xid_events) xid_watcher_ = std::make_unique<XidWatcher>(api_);
  if (options_.stale_after.count() <= 0) options_.stale_after = 3 * options_.interval + std::chrono::seconds(2);
  if (options_.diagnose) {
    diagnosis_ = std::make_unique<LiveDiagnosis>([this] { return diagnosis_input(); }, options_.interval,
                                                 options_.on_diagnosis_tick);
  }
}

DiagnosisInput Collector::diagnosis_input() const {
  DiagnosisInput input;
  std::lock_guard lock(shared_->mutex);
  input.snapshot.device_count = shared_->latest.device_count;
  input.snapshot.driver_version = shared_->latest.driver_version;
  const auto now = Steady::now();
  for (std::size_t i = 0; i < shared_->slots.size(); ++i) {
    const Slot& slot = shared_->slots[i];
    if (slot.has_sample) input.snapshot.devices.push_back(shared_->latest.devices[i]);
    DiagnosisInput::Freshness fresh;
    fresh.index = static_cast<unsigned>(i);
    fresh.has_sample = slot.has_sample;
    if (slot.has_sample) {
      fresh.age_s = std::chrono::duration<double>(now - slot.started).count();
      fresh.stale = now - slot.started > options_.stale_after;
    }
    input.freshness.push_back(fresh);
  }
  if (xid_watcher_) input.xids = xid_watcher_->counts();
  return input;
}

Collector::~Collector() {
  if (diagnosis_) diagnosis_->stop();
  stop(std::chrono::milliseconds(0));
  std::lock_guard lock(shared_->mutex);
  for (auto& t : shared_->threads) {
    if (t.joinable()) t.detach();  // still inside NVML: it exits on its own and holds `shared`
  }
}

void Collector::start() {
  unsigned count = 0;
  if (api_.device_count(&count) != NVML_SUCCESS) count = 0;
  std::lock_guard lock(shared_->mutex);
  shared_->latest.device_count = count;
  shared_->latest.devices.resize(count);
  for (unsigned i = 0; i < count; ++i) shared_->latest.devices[i].index = i;
  shared_->slots.resize(count);
  for (unsigned i = 0; i < count; ++i) {
    ++shared_->running;
    shared_->threads.emplace_back(run_gpu, shared_, std::cref(api_), options_, i);
  }
  if (xid_watcher_) xid_watcher_->start(count);
  if (diagnosis_) diagnosis_->start();
}

bool Collector::stop(std::chrono::milliseconds timeout) {
  if (diagnosis_) diagnosis_->stop();  // never inside NVML: stops within one tick
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopping = true;
    shared_->wake.notify_all();
  }
  // The Xid watcher's wait is bounded: it ends within one wait (while the samplers end too).
  const bool xid_stopped = !xid_watcher_ || xid_watcher_->stop(timeout);
  std::unique_lock lock(shared_->mutex);
  bool all = shared_->exited.wait_for(lock, timeout, [&] { return shared_->running == 0; });
  if (!all || !xid_stopped) return false;
  auto threads = std::move(shared_->threads);
  shared_->threads.clear();
  lock.unlock();
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
  return true;
}

void Collector::with_view(const std::function<void(const ExportView&)>& fn) const {
  std::lock_guard lock(shared_->mutex);
  ExportView view;
  view.snapshot = &shared_->latest;
  auto now = Steady::now();
  view.collector_success = true;
  for (std::size_t i = 0; i < shared_->slots.size(); ++i) {
    const Slot& slot = shared_->slots[i];
    DeviceStatus status;
    status.has_sample = slot.has_sample;
    if (slot.has_sample) {
      status.sample_age_seconds = std::chrono::duration<double>(now - slot.started).count();
      status.collect_duration_seconds = slot.duration_seconds;
      status.up = shared_->latest.devices[i].state == core::DeviceState::Ok &&
                  now - slot.started <= options_.stale_after;
    }
    view.collector_success = view.collector_success && status.up;
    view.status.push_back(status);
    for (const auto& [pid, user] : slot.users) view.process_users[pid] = user;
    for (const auto& [pid, info] : slot.process_info) view.process_info[pid] = info;
    if (options_.attributor) {
      view.gpu_owners.push_back(slot.owners ? slot.owners->labels : attribution::OwnerLabels{});
      if (slot.owners) {
        for (const auto& [pid, owner] : slot.owners->processes) view.process_owners[pid] = owner;
      }
    }
  }
  for (const auto& [key, count] : shared_->errors) view.nvml_errors.push_back({key.first, key.second, count});
  if (xid_watcher_) view.xid_events = xid_watcher_->counts();
  if (diagnosis_) view.findings = diagnosis_->active();
  if (options_.alert_board) view.alerts = options_.alert_board->active();
  fn(view);
}

unsigned Collector::gpu_count() const {
  std::lock_guard lock(shared_->mutex);
  return static_cast<unsigned>(shared_->slots.size());
}

bool Collector::ready() const {
  std::lock_guard lock(shared_->mutex);
  return std::all_of(shared_->slots.begin(), shared_->slots.end(), [](const Slot& s) { return s.has_sample; });
}

}  // namespace gpuwatch::exporter
