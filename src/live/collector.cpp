// The Collector's threads (one per GPU, or the pool with its watchdog) and its readers; one GPU's
// sample is gpu_worker.cpp, the state they share collector_shared.hpp.
#include "live/collector.hpp"

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

#include "live/collector_shared.hpp"
#include "live/diagnosis_input.hpp"

namespace gpuwatch::live {

// Identity fields a lost GPU keeps from its last good sample: its UUID and what gpuwatch_gpu_info
// labels it with (exporter/metric_list.def's GW_INFO_LABEL rows; a test keeps the two in step).
std::vector<core::FieldId> identity_fields() {
  using F = core::FieldId;
  return {F::Uuid, F::Name, F::PciBusId, F::Serial, F::VbiosVersion, F::Brand, F::Architecture, F::ComputeCap};
}

namespace {

// CollectorOptions::catch_up: how far behind the grid a GPU may fall before it skips ticks.
constexpr std::chrono::seconds kCatchUpLimit{1};

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

void run_gpu(std::shared_ptr<Collector::Shared> shared, const backend::DeviceBackend& api, CollectorOptions options,
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

Collector::Collector(const backend::DeviceBackend& api, CollectorOptions options)
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
  if (!api_.device_count(&count).ok()) count = 0;
  std::lock_guard lock(shared_->mutex);
  shared_->latest.device_count = count;
  shared_->latest.devices.resize(count);
  for (unsigned i = 0; i < count; ++i) {
    shared_->latest.devices[i].index = i;
    shared_->latest.devices[i].vendor = api_.vendor_of(i);  // known before its first sample
  }
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
  if (options_.host.enabled) {  // issue 25: the host, on a thread of its own
    ++shared_->running;
    shared_->threads.emplace_back(run_host, shared_, options_);
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
      status.estimated_energy_joules = slot.estimated_energy_joules;
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
