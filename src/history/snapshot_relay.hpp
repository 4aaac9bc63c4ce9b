#pragma once
// A bounded hand-off of snapshots from the thread that reads the history to the thread that
// diagnoses it (history::feed_recorded): a week of 8 GPUs reads and diagnoses at once, on two
// cores, instead of one after the other (issue 23's bench, bench/diagnose_week.sh).
// The store's streamed reader reuses one device per GPU from row to row; push() gives it back
// the devices of a snapshot already diagnosed (the same GPUs, in the same order) in exchange
// for the fresh ones, so nothing is copied in the steady state. A snapshot of other GPUs is
// copied.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/snapshot.hpp"

namespace gpuwatch::history {

class SnapshotRelay {
 public:
  explicit SnapshotRelay(std::size_t depth = 16) : depth_(depth) {}

  // Reader: hands SNAPSHOT over (waits while DEPTH snapshots are not yet taken). SNAPSHOT is
  // left with devices the reader may reuse, or unchanged.
  void push(core::Snapshot& snapshot);
  // Reader: no more snapshots.
  void close();

  // Diagnoser: the next snapshot in order, or nullptr once closed and drained. The one it
  // returned before is given back for reuse.
  core::Snapshot* next();

 private:
  std::unique_ptr<core::Snapshot> spare_for(const core::Snapshot& snapshot);  // under mutex_

  const std::size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<core::Snapshot>> queued_;
  std::vector<std::unique_ptr<core::Snapshot>> spares_;  // diagnosed, their devices free for reuse
  std::unique_ptr<core::Snapshot> current_;              // the diagnoser's
  bool closed_ = false;
  bool reader_waits_ = false, diagnoser_waits_ = false;  // who sleeps on changed_
};

}  // namespace gpuwatch::history
