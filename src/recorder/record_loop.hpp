#pragma once
// `gpuwatch record`'s loop: the live session's sampling threads push every GPU's samples into a
// SampleQueue; this loop takes them back grouped into whole ticks (every GPU that answers, or
// one that runs late after 1.5 s; a stale one is not waited for), and for each tick: the Xid
// rows, the --csv/--jsonl logs, the session's diagnosis and alerts (findings told on stderr when
// they start and end), the database rows and the processes' owners. --count N stops after N
// samples of each GPU. A stop signal ends the wait; what was sampled before it is kept, except a
// last tick that only some GPUs had reached.
#include <chrono>
#include <csignal>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "attribution/attributor.hpp"
#include "live/live_session.hpp"
#include "live/xid_count.hpp"
#include "recorder/host_queue.hpp"
#include "recorder/log_writer.hpp"
#include "recorder/sample_queue.hpp"
#include "recorder/storage.hpp"
#include "recorder/xid_rows.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::recorder {

// Where each whole tick goes; every pointer may be null (not written there).
struct RecordOutputs {
  store::HistoryDatabase* db = nullptr;  // the Xid rows
  DatabaseRecorder* recorder = nullptr;  // the samples (buffered, flushed when due)
  std::vector<std::unique_ptr<SampleLog>>* logs = nullptr;
  attribution::Attributor* attributor = nullptr;  // with recorder: the processes' owners
};

// Tells the findings already active at the start (the session's, primed from the recorded history)
// as ongoing, once: they are not told as new.
void announce_ongoing_findings(const std::vector<diagnose::Finding>& findings);

class RecordLoop {
 public:
  // SESSION: started, in live::DiagnosisMode::WholeTicks, pushing into QUEUE. COUNT: samples of
  // each GPU wanted (0: until STOP_SIGNAL). STOP_SIGNAL: set by the signal handler.
  RecordLoop(live::LiveSession& session, SampleQueue& queue, RecordOutputs outputs, std::chrono::milliseconds interval,
             long count, const volatile std::sig_atomic_t& stop_signal);

  // Before run(): the session's host samples (its collector's on_host_sample pushes them): each
  // tick gets the nearest as Snapshot::host before it is diagnosed and written (issue 25). None:
  // no host (--no-host).
  void attach_host(std::shared_ptr<HostQueue> host) { host_ = std::move(host); }
  // Writes whole ticks as they complete, until --count is reached or a stop signal comes.
  void run();
  // After the session's sampling stopped on a signal: the ticks sampled before it.
  void drain();

  long samples() const { return samples_; }

 private:
  void take_tick(core::Snapshot& snapshot);
  bool wanted_more() const;
  std::size_t answering() const;

  live::LiveSession& session_;
  SampleQueue& queue_;
  RecordOutputs out_;
  std::chrono::milliseconds interval_;
  long count_;
  const volatile std::sig_atomic_t& stop_signal_;
  unsigned gpu_count_;
  std::chrono::milliseconds window_;  // the GPUs of one tick start within it
  std::vector<OutputHealth> log_health_;
  std::vector<long> per_gpu_;  // --count: samples taken of each GPU
  std::optional<std::chrono::steady_clock::time_point> first_done_;
  std::size_t tick_size_ = 0;  // GPUs in the latest tick written (a signal: drop a partial last one)
  std::vector<diagnose::Finding> active_;
  XidCountDiff xid_diff_;
  std::vector<live::XidCount> xid_counts_;
  std::shared_ptr<HostQueue> host_;
  long samples_ = 0;
};

}  // namespace gpuwatch::recorder
