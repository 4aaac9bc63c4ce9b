#include "live/collector.hpp"

#include "attribution/snapshot_processes.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <sys/timerfd.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include "live/diagnosis_input.hpp"
#include "sampler/profiling_sampler.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::live {

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

namespace {

}  // namespace

// Identity fields a lost GPU keeps from its last good sample: its UUID and what gpuwatch_gpu_info
// labels it with (exporter/metric_list.def's GW_INFO_LABEL rows; a test keeps the two in step).
std::vector<core::FieldId> identity_fields() {
  using F = core::FieldId;
  return {F::Uuid, F::Name, F::PciBusId, F::Serial, F::VbiosVersion, F::Brand, F::Architecture, F::ComputeCap};
}

namespace {

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

// One GPU's sampling state (its Sampler remembers what the GPU does not support, the caches of
// its processes), used by one thread at a time: its own, or the pool thread that owns the GPU.
class GpuWorker {
 public:
  GpuWorker(const nvml::NvmlApi& api, const CollectorOptions& options, unsigned index)
      : options_(options), index_(index), sampler_(api), profiling_(api), identity_(identity_fields()) {
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

  unsigned index() const { return index_; }

  // One sample of the GPU for the tick SCHEDULED (NVML, /proc, attribution, the on_sample hook):
  // outside the collector's lock.
  void sample(Steady::time_point scheduled) {
    started_ = Steady::now();
    sampler_.sample_into(sample_options_, local_);
    if (!local_.devices.empty()) profiling_.sample(local_.devices.front(), sampler_.handle_of(index_));
    duration_ = std::chrono::duration<double>(Steady::now() - started_).count();

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

  // Makes the latest sample the one readers see. Under the collector's lock.
  void publish(Collector::Shared& shared);

 private:
  struct CachedInfo {
    host::ProcessInfo info;
    Steady::time_point read_at;
  };
  const CollectorOptions options_;
  unsigned index_;
  sampler::Sampler sampler_;
  sampler::ProfilingSampler profiling_;  // GPM activity and MIG devices (state between samples)
  sampler::SampleOptions sample_options_;
  const std::vector<core::FieldId> identity_;
  core::Snapshot local_;
  std::map<std::uint32_t, std::optional<std::string>> user_cache_;
  host::CpuTracker cpu_;  // CPU % of this GPU's processes between readings
  std::map<std::uint32_t, CachedInfo> info_cache_;
  std::vector<std::uint32_t> attributed_pids_;  // the processes of the latest attribution
  std::optional<Steady::time_point> attributed_at_;
  // The latest sample's results, until published.
  Steady::time_point started_{};
  double duration_ = 0;
  std::map<std::uint32_t, std::string> users_;
  std::map<std::uint32_t, host::ProcessInfo> process_info_;
  std::optional<attribution::DeviceOwners> owners_;
};

}  // namespace

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

  // CollectorOptions::one_thread: the GPUs sampled one after the other by the pool thread. A
  // GPU's worker is used only by the thread that owns the GPU (the pool, or the thread a hung
  // GPU kept); ownership changes under the mutex.
  std::vector<std::unique_ptr<GpuWorker>> workers;
  unsigned pool_generation = 0;           // which thread is the pool now
  std::vector<unsigned> pool_gpus;        // the GPUs it owns
  std::vector<unsigned> pool_tick;        // the GPUs of its current tick, in order
  std::size_t pool_position = 0;          // ... the one being sampled
  std::optional<unsigned> pool_busy;      // the GPU inside a sample now
  Steady::time_point pool_busy_since{};
  Steady::time_point pool_scheduled{};    // the current tick
  int timer_fd = -1;                      // fires when a sample overruns the hang budget
  std::chrono::milliseconds hang_budget{};

  Shared() = default;
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared() {
    if (timer_fd >= 0) ::close(timer_fd);
  }

  void arm_timer(Steady::time_point at) const {
    if (timer_fd < 0) return;
    itimerspec spec{};
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
    spec.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
    spec.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;  // 0 would disarm
    ::timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, nullptr);
  }
  void disarm_timer() const {
    if (timer_fd < 0) return;
    itimerspec spec{};
    ::timerfd_settime(timer_fd, 0, &spec, nullptr);
  }
};

namespace {

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
  if (owners_) slot.owners = std::move(owners_);
  slot.users = std::move(users_);
  slot.process_info = std::move(process_info_);
  if (options_.history && !local_.devices.empty()) {
    options_.history->push(make_history_row(shared.latest.devices[index_], local_.timestamp));
  }
}

// The tick after the one at NEXT on the interval grid (ticks missed by a slow sample are skipped;
// with catch_up, late ticks are sampled at once, back to back, unless they are more than
// kCatchUpLimit behind: a GPU that hung for a while rejoins the grid).
Steady::time_point next_tick(Steady::time_point next, const CollectorOptions& options) {
  auto now = Steady::now();
  next += options.interval;
  if (!options.catch_up || now - next > std::max<Steady::duration>(kCatchUpLimit, 2 * options.interval)) {
    while (next <= now) next += options.interval;
  }
  return next;
}

// One GPU on a thread of its own, from the tick NEXT on; LOCK is held on entry and on return.
void sample_alone(Collector::Shared& shared, std::unique_lock<std::mutex>& lock, GpuWorker& worker,
                  const CollectorOptions& options, Steady::time_point next) {
  for (;;) {
    if (shared.wake.wait_until(lock, next, [&] { return shared.stopping; })) return;
    const auto scheduled = next;  // this sample's tick on the interval grid
    lock.unlock();
    worker.sample(scheduled);
    lock.lock();
    if (shared.stopping) return;
    worker.publish(shared);
    next = next_tick(next, options);
  }
}

void finish(Collector::Shared& shared, std::unique_lock<std::mutex>& lock) {
  if (!lock.owns_lock()) lock.lock();
  --shared.running;
  shared.exited.notify_all();
}

void run_gpu(std::shared_ptr<Collector::Shared> shared, const nvml::NvmlApi& api, CollectorOptions options,
             unsigned index) {
  GpuWorker worker(api, options, index);
  std::unique_lock lock(shared->mutex);
  sample_alone(*shared, lock, worker, options, Steady::now());
  finish(*shared, lock);
}

// The pool: every GPU it owns, one after the other, each tick; first the GPUs of PENDING (the rest
// of the tick at SCHEDULED that a hung GPU held up) at once. When the watchdog finds a sample of
// this thread overrunning the hang budget, it hands the pool's other GPUs to a new pool thread
// (generation + 1); this thread, once the call returns, goes on with that GPU alone.
void run_pool(std::shared_ptr<Collector::Shared> shared, CollectorOptions options, unsigned generation,
              std::vector<unsigned> pending, Steady::time_point scheduled) {
  Collector::Shared& s = *shared;
  std::unique_lock lock(s.mutex);
  Steady::time_point next = scheduled;
  bool first = true;
  for (;;) {
    if (!first && s.wake.wait_until(lock, next, [&] { return s.stopping; })) break;
    if (s.stopping) break;
    s.pool_tick = first ? pending : s.pool_gpus;
    first = false;
    s.pool_scheduled = next;
    const bool armed = s.pool_gpus.size() > 1;  // one GPU alone needs no watchdog
    if (armed) s.arm_timer(Steady::now() + s.hang_budget);
    for (s.pool_position = 0; s.pool_position < s.pool_tick.size(); ++s.pool_position) {
      const unsigned gpu = s.pool_tick[s.pool_position];
      GpuWorker& worker = *s.workers[gpu];
      s.pool_busy = gpu;
      s.pool_busy_since = Steady::now();
      lock.unlock();
      worker.sample(next);
      lock.lock();
      if (s.stopping) break;
      worker.publish(s);
      if (generation != s.pool_generation) {  // this GPU hung and kept this thread: alone from now on
        sample_alone(s, lock, worker, options, next_tick(next, options));
        finish(s, lock);
        return;
      }
      s.pool_busy.reset();
    }
    if (s.stopping) break;
    if (armed) s.disarm_timer();
    next = next_tick(next, options);
  }
  if (generation == s.pool_generation) s.pool_busy.reset();
  finish(s, lock);
}

// The pool's watchdog: sleeps in read(2) on the timer, which fires only when the pool's tick
// overruns the hang budget (a tick that ends in time disarms it: no wake-up). Then the GPU whose
// call hangs keeps the pool's thread, and a new pool thread samples the others, starting with the
// rest of the held-up tick.
void watch_pool(std::shared_ptr<Collector::Shared> shared, CollectorOptions options) {
  Collector::Shared& s = *shared;
  for (;;) {
    std::uint64_t expirations = 0;
    if (::read(s.timer_fd, &expirations, sizeof expirations) < 0 && errno != EINTR && errno != EAGAIN) return;
    std::unique_lock lock(s.mutex);
    if (s.stopping) return;
    if (!s.pool_busy) continue;  // the tick ended meanwhile
    const auto now = Steady::now();
    if (now - s.pool_busy_since < s.hang_budget) {  // another GPU of a slow tick: give it its budget
      s.arm_timer(s.pool_busy_since + s.hang_budget);
      continue;
    }
    const unsigned hung = *s.pool_busy;
    std::vector<unsigned> rest;
    for (unsigned gpu : s.pool_gpus) {
      if (gpu != hung) rest.push_back(gpu);
    }
    std::vector<unsigned> pending;  // the held-up tick's GPUs after the hung one
    for (std::size_t i = s.pool_position + 1; i < s.pool_tick.size(); ++i) pending.push_back(s.pool_tick[i]);
    ++s.pool_generation;
    s.pool_gpus = rest;
    s.pool_busy.reset();
    if (rest.empty()) continue;
    ++s.running;
    s.threads.emplace_back(run_pool, shared, options, s.pool_generation, std::move(pending), s.pool_scheduled);
  }
}

}  // namespace

std::chrono::milliseconds pool_hang_budget(std::chrono::milliseconds interval) {
  return std::clamp<std::chrono::milliseconds>(interval / 4, std::chrono::milliseconds(50), std::chrono::milliseconds(1000));
}

Collector::Collector(const nvml::NvmlApi& api, CollectorOptions options)
    : api_(api), options_(std::move(options)), shared_(std::make_shared<Shared>()) {
  if (options_.xid_events) xid_watcher_ = std::make_unique<XidWatcher>(api_);
  if (options_.stale_after.count() <= 0) options_.stale_after = 3 * options_.interval + std::chrono::seconds(2);
  if (options_.diagnose) {
    diagnosis_ = std::make_unique<LiveDiagnosis>(
        [this] { return diagnosis_input(); }, options_.interval, options_.on_diagnosis_tick,
        options_.primed_diagnosis ? std::move(*options_.primed_diagnosis) : diagnose::Diagnoser(),
        options_.process_identities ? std::move(options_.process_identities)
                                    : proc_identity_reader("/proc", options_.attributor));
    options_.primed_diagnosis.reset();  // taken: the sampling threads' copies of the options need none
  }
}

DiagnosisInput Collector::diagnosis_input() const {
  std::lock_guard lock(shared_->mutex);
  const auto now = Steady::now();
  std::vector<std::optional<double>> sample_age_s;
  sample_age_s.reserve(shared_->slots.size());
  for (const Slot& slot : shared_->slots) {
    sample_age_s.push_back(slot.has_sample ? std::optional(std::chrono::duration<double>(now - slot.started).count())
                                           : std::nullopt);
  }
  return make_diagnosis_input(shared_->latest, sample_age_s, std::chrono::duration<double>(options_.stale_after).count(),
                              xid_watcher_ ? xid_watcher_->counts() : std::vector<XidCount>{});
}

Collector::~Collector() {
  if (diagnosis_) diagnosis_->stop();
  stop(std::chrono::milliseconds(0));
  std::lock_guard lock(shared_->mutex);
  for (auto& t : shared_->threads) {
    if (t.joinable()) t.detach();  // still inside NVML: it exits on its own and holds `shared`
  }
  // The timer goes with the last thread that holds `shared` (Shared's destructor).
}

void Collector::start() {
  unsigned count = 0;
  if (api_.device_count(&count) != NVML_SUCCESS) count = 0;
  std::lock_guard lock(shared_->mutex);
  shared_->latest.device_count = count;
  shared_->latest.devices.resize(count);
  for (unsigned i = 0; i < count; ++i) shared_->latest.devices[i].index = i;
  shared_->slots.resize(count);
  if (options_.one_thread && count > 1) shared_->timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  if (shared_->timer_fd >= 0) {
    shared_->hang_budget = pool_hang_budget(options_.interval);
    for (unsigned i = 0; i < count; ++i) {
      shared_->workers.push_back(std::make_unique<GpuWorker>(api_, options_, i));
      shared_->pool_gpus.push_back(i);
    }
    ++shared_->running;
    shared_->threads.emplace_back(run_pool, shared_, options_, shared_->pool_generation, shared_->pool_gpus, Steady::now());
    watchdog_ = std::thread(watch_pool, shared_, options_);
  } else {
    for (unsigned i = 0; i < count; ++i) {
      ++shared_->running;
      shared_->threads.emplace_back(run_gpu, shared_, std::cref(api_), options_, i);
    }
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
    shared_->arm_timer(Steady::time_point{});  // the watchdog wakes at once and ends
  }
  if (watchdog_.joinable()) watchdog_.join();  // it never waits on NVML
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

void Collector::with_view(const std::function<void(const LiveView&)>& fn) const {
  std::lock_guard lock(shared_->mutex);
  LiveView view;
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

}  // namespace gpuwatch::live
