#include "recorder/recorder_thread.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <set>
#include <utility>

#include "history/lost_monitors.hpp"
#include "attribution/snapshot_processes.hpp"
#include "core/exit_codes.hpp"
#include "store/database_path.hpp"

namespace gpuwatch::recorder {

using SystemClock = std::chrono::system_clock;

std::vector<core::Snapshot> group_samples(std::vector<TimedDevice> samples, std::chrono::milliseconds window) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const TimedDevice& a, const TimedDevice& b) { return a.started < b.started; });
  std::vector<core::Snapshot> snapshots;
  std::set<unsigned> gpus;  // in the current snapshot
  for (auto& sample : samples) {
    const bool fits = !snapshots.empty() && sample.started - snapshots.back().timestamp < window &&
                      gpus.count(sample.device.index) == 0;
    if (!fits) {
      snapshots.emplace_back();
      snapshots.back().timestamp = sample.started;
      gpus.clear();
    }
    gpus.insert(sample.device.index);
    snapshots.back().devices.push_back(std::move(sample.device));
  }
  for (auto& snapshot : snapshots) {
    std::sort(snapshot.devices.begin(), snapshot.devices.end(),
              [](const core::DeviceSnapshot& a, const core::DeviceSnapshot& b) { return a.index < b.index; });
    snapshot.device_count = static_cast<unsigned>(snapshot.devices.size());
  }
  return snapshots;
}

LiveRecorder::LiveRecorder(std::unique_ptr<store::HistoryDatabase> db, const StoragePlan& plan,
                             std::chrono::milliseconds interval, std::size_t max_queued)
    : db_(std::move(db)),
      path_(db_->path()),
      interval_(interval),
      flush_interval_(plan.flush_interval),
      max_queued_(std::max<std::size_t>(max_queued, 1)),
      recorder_(std::make_unique<DatabaseRecorder>(*db_, plan, "serve")) {}

LiveRecorder::~LiveRecorder() { stop(); }

void LiveRecorder::start() {
  std::lock_guard lock(mutex_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread([this] { run(); });
}

void LiveRecorder::push(const core::DeviceSnapshot& device, SystemClock::time_point started) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  if (queue_.size() >= max_queued_) {
    queue_.erase(queue_.begin());  // only while the recorder thread is stuck; rare
    ++dropped_;
  }
  queue_.push_back(TimedDevice{device, started});
}

std::vector<TimedDevice> LiveRecorder::take(std::optional<SystemClock::time_point> cutoff) {
  std::lock_guard lock(mutex_);
  std::vector<TimedDevice> taken, kept;
  for (auto& sample : queue_) {
    (!cutoff || sample.started < *cutoff ? taken : kept).push_back(std::move(sample));
  }
  queue_.swap(kept);
  return taken;
}

void LiveRecorder::run() {
  recorder_->maintain(true);
  // Wake often enough to keep the queue short; hold back the latest half interval so that
  // the GPUs of one tick, which finish a few milliseconds apart, land in one snapshot.
  const auto wake_every = std::clamp<std::chrono::milliseconds>(flush_interval_, std::chrono::milliseconds(50),
                                                                std::chrono::milliseconds(1000));
  const auto window = std::max<std::chrono::milliseconds>(interval_ / 2, std::chrono::milliseconds(1));
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, wake_every, [this] { return stopping_; })) break;
    }
    try {
      for (auto& snapshot : group_samples(take(SystemClock::now() - window), window)) {
        record(snapshot);
        last_snapshot_ = snapshot;
      }
      write_xid_events();
      recorder_->flush_if_due(std::chrono::steady_clock::now());
    } catch (const std::exception& e) {  // never let the recorder take serve down
      fmt::print(stderr, "gpuwatch serve: recording to {}: {}\n", path_, e.what());
    }
    std::lock_guard lock(mutex_);
    written_ = recorder_->written_rows();
  }
  for (auto& snapshot : group_samples(take(std::nullopt), window)) record(snapshot);
  write_xid_events();
  recorder_->flush();
  if (recorder_->dropped_rows() > 0) {
    fmt::print(stderr, "gpuwatch serve: {} rows were dropped while {} could not be written\n", recorder_->dropped_rows(),
               path_);
  }
  std::lock_guard lock(mutex_);
  written_ = recorder_->written_rows();
}

void LiveRecorder::push_xid_counts(std::vector<live::XidCount> counts) {
  std::lock_guard lock(mutex_);
  if (!stopping_) xid_counts_ = std::move(counts);
}

void LiveRecorder::record(core::Snapshot& snapshot) {
  if (!snapshot.host) snapshot.host = host_.take_for(snapshot.timestamp, interval_);  // the host beside it
  recorder_->add(snapshot);
  if (attributor_) recorder_->add_owners(snapshot, attributor_->attribute(attribution::gpu_processes(snapshot)));
}

void LiveRecorder::write_xid_events() {
  std::optional<std::vector<live::XidCount>> counts;
  {
    std::lock_guard lock(mutex_);
    counts.swap(xid_counts_);
  }
  if (!counts) return;
  if (auto written = store::write_xid_events(*db_, xid_diff_.new_events(*counts, last_snapshot_)); !written) {
    fmt::print(stderr, "gpuwatch serve: recording to {}: {}\n", path_, written.error().message);
  }
}

void LiveRecorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::size_t LiveRecorder::dropped_samples() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::size_t LiveRecorder::written_rows() const {
  std::lock_guard lock(mutex_);
  return written_;
}

core::Result<std::shared_ptr<LiveRecorder>> open_live_recorder(const StorageArgs& args, bool no_record,
                                                                 std::chrono::milliseconds interval) {
  auto plan = parse_storage_args(args);
  if (!plan) return core::make_error(plan.error().message, core::kExitUsage);
  if (no_record) {
    if (!args.db.empty()) return core::make_error("--db and --no-record contradict each other", core::kExitUsage);
    return std::shared_ptr<LiveRecorder>();
  }
  const bool explicit_db = !args.db.empty();
  const std::string path = explicit_db ? args.db : store::default_database_path();
  auto opened = [&]() -> core::Result<std::unique_ptr<store::HistoryDatabase>> {
    if (path.empty()) return core::make_error(store::no_default_database_message());
    if (auto ready = store::prepare_database_directory(path); !ready) return ready.error();
    return store::HistoryDatabase::open(path);
  }();
  if (!opened) {
    if (explicit_db) return core::make_error(opened.error().message, core::kExitRuntimeError);
    fmt::print(stderr, "gpuwatch serve: not recording history: {} (give --db PATH, or --no-record)\n",
               opened.error().message);
    return std::shared_ptr<LiveRecorder>();
  }
  if (!explicit_db) {
    if (auto note = store::simulated_default_note(); !note.empty()) fmt::print(stderr, "gpuwatch serve: {}\n", note);
  }
  // A job whose `gpuwatch run` died runs on unrecorded: said once (issue 31).
  for (const auto& line : history::notice_lost_monitors(**opened)) fmt::print(stderr, "gpuwatch serve: {}\n", line);
  return std::make_shared<LiveRecorder>(std::move(*opened), *plan, interval);
}

}  // namespace gpuwatch::recorder
