#pragma once
// `gpuwatch serve` and `gpuwatch run` record too, from their live session's sampler (one process,
// one set of NVML calls: live/live_session.hpp): the collector's sampling threads hand every
// finished sample to push() (a short
// lock and a bounded queue, nothing else), and the recorder's own thread groups the
// samples of one tick into snapshots and writes them with DatabaseRecorder
// (recorder/storage.hpp): one transaction every --flush-interval, retention after a
// flush at most once a minute. A full disk or a locked database only ever blocks that
// thread: it says so once, keeps rows buffered (bounded), and resumes when it can write.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "attribution/attributor.hpp"
#include "live/sample_recorder.hpp"
#include "live/xid_count.hpp"
#include "recorder/host_queue.hpp"
#include "recorder/storage.hpp"
#include "recorder/xid_rows.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::recorder {

// One GPU's finished sample and when it started.
struct TimedDevice {
  core::DeviceSnapshot device;
  std::chrono::system_clock::time_point started;
};

// Groups per-GPU samples into snapshots, in time order: a snapshot takes the samples that
// started within WINDOW of its first one, at most one per GPU index, and carries the first
// one's time (the GPUs of one tick start within milliseconds of each other).
std::vector<core::Snapshot> group_samples(std::vector<TimedDevice> samples, std::chrono::milliseconds window);

class LiveRecorder final : public live::SampleRecorder {
 public:
  // INTERVAL: the sampling interval (the grouping window is half of it).
  LiveRecorder(std::unique_ptr<store::HistoryDatabase> db, const StoragePlan& plan,
                std::chrono::milliseconds interval, std::size_t max_queued = 100'000);
  ~LiveRecorder() override;  // stop()
  LiveRecorder(const LiveRecorder&) = delete;
  LiveRecorder& operator=(const LiveRecorder&) = delete;

  // Before start(): also keep the owner of each process (issue 15, store/process_owners.hpp), from
  // serve's attributor (its cached answers: the recorder's thread never waits on an API).
  void set_attributor(std::shared_ptr<attribution::Attributor> attributor) { attributor_ = std::move(attributor); }
  void start() override;
  // From any thread; ignored after stop(). Beyond MAX_QUEUED waiting samples the oldest go.
  void push(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) override;
  // The Xid watcher's running counts (live/xid_watcher.hpp), from any thread: the events
  // new since the last counts are written to the history on the recorder's thread
  // (store/xid_log.hpp), with the GPU's UUID from the latest snapshot.
  void push_xid_counts(std::vector<live::XidCount> counts) override;
  // The session's host samples (live::CollectorOptions::on_host_sample), from any thread: each
  // grouped snapshot is written with the nearest one (issue 25; store/host_history.hpp).
  void push_host(HostQueue::Sample sample) { host_.push(std::move(sample)); }
  // Writes everything queued (one last flush) and ends the thread. Idempotent.
  void stop() override;

  const std::string& path() const { return path_; }
  std::size_t dropped_samples() const;
  std::size_t written_rows() const;

 private:
  void run();
  // Queued samples that started before CUTOFF (all with nullopt), oldest first.
  std::vector<TimedDevice> take(std::optional<std::chrono::system_clock::time_point> cutoff);

  std::unique_ptr<store::HistoryDatabase> db_;
  std::string path_;
  std::chrono::milliseconds interval_;
  std::chrono::milliseconds flush_interval_;
  std::size_t max_queued_;
  std::unique_ptr<DatabaseRecorder> recorder_;  // used by the recorder thread only
  XidCountDiff xid_diff_;                       // recorder thread only
  core::Snapshot last_snapshot_;                // recorder thread only: the UUIDs of the Xid rows
  void write_xid_events();                      // recorder thread
  void record(core::Snapshot& snapshot);  // recorder thread: the samples (with their host), and their owners
  HostQueue host_;
  std::shared_ptr<attribution::Attributor> attributor_;  // null: no owners kept

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<TimedDevice> queue_;
  std::optional<std::vector<live::XidCount>> xid_counts_;  // the latest pushed, not yet read
  bool stopping_ = false, started_ = false;
  std::size_t dropped_ = 0, written_ = 0;
  std::thread thread_;
};

// What serve records to, from its flags. Null recorder and no error when recording is off
// (--no-record), or when the DEFAULT database cannot be opened (a warning on stderr, once:
// serving goes on). An error (message for stderr) when an explicit --db cannot be opened
// or a flag is wrong; Error::code is the exit code.
core::Result<std::shared_ptr<LiveRecorder>> open_live_recorder(const StorageArgs& args, bool no_record,
                                                                 std::chrono::milliseconds interval);

}  // namespace gpuwatch::recorder
