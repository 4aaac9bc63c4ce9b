#include "history/snapshot_relay.hpp"

#include <utility>

namespace gpuwatch::history {
namespace snapshot_relay_detail {  // unity builds: names of this file only

// Whether SPARE's devices are those of SNAPSHOT (GPU by GPU, in order), so the reader can
// take them for its own: the same identity readings, every reading slot there.
bool same_devices(const core::Snapshot& spare, const core::Snapshot& snapshot) {
  if (spare.devices.size() != snapshot.devices.size()) return false;
  for (std::size_t k = 0; k < spare.devices.size(); ++k) {
    const auto& a = spare.devices[k];
    const auto& b = snapshot.devices[k];
    if (a.index != b.index || a.state != b.state || a.readings.size() != core::kFieldCount ||
        b.readings.size() != core::kFieldCount)
      return false;
    const auto& ua = a.get(core::FieldId::Uuid);
    const auto& ub = b.get(core::FieldId::Uuid);
    if (ua.status != ub.status || ua.value != ub.value) return false;
  }
  return true;
}

}  // namespace snapshot_relay_detail

std::unique_ptr<core::Snapshot> SnapshotRelay::spare_for(const core::Snapshot& snapshot) {
  for (auto it = spares_.begin(); it != spares_.end(); ++it) {
    if (snapshot_relay_detail::same_devices(**it, snapshot)) {
      auto out = std::move(*it);
      spares_.erase(it);
      return out;
    }
  }
  return nullptr;
}

void SnapshotRelay::push(core::Snapshot& snapshot) {
  std::unique_ptr<core::Snapshot> spare;
  {
    std::unique_lock lock(mutex_);
    if (queued_.size() >= depth_) {
      reader_waits_ = true;
      changed_.wait(lock, [&] { return queued_.size() < depth_; });
      reader_waits_ = false;
    }
    spare = spare_for(snapshot);
  }
  if (spare) {
    std::swap(spare->devices, snapshot.devices);  // the reader reuses the diagnosed devices
    spare->timestamp = snapshot.timestamp;
    spare->driver_version = snapshot.driver_version;
    spare->cuda_driver_version = snapshot.cuda_driver_version;
    spare->device_count = snapshot.device_count;
    spare->error_strings = snapshot.error_strings;
    spare->host = snapshot.host;  // the host of the same time (issue 25)
  } else {
    spare = std::make_unique<core::Snapshot>(snapshot);
  }
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    queued_.push_back(std::move(spare));
    // A waiting diagnoser is woken for a batch, not for every snapshot: a wake-up per
    // snapshot (60,000 in a week at 10 s) cost more than the overlap gained.
    wake = diagnoser_waits_ && queued_.size() >= depth_ / 4;
  }
  if (wake) changed_.notify_all();
}

void SnapshotRelay::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

core::Snapshot* SnapshotRelay::next() {
  std::unique_lock lock(mutex_);
  if (current_ && spares_.size() < depth_) spares_.push_back(std::move(current_));
  current_.reset();
  if (queued_.empty() && !closed_) {
    diagnoser_waits_ = true;
    changed_.wait(lock, [&] { return queued_.size() >= depth_ / 4 || closed_; });
    diagnoser_waits_ = false;
  }
  if (queued_.empty()) return nullptr;
  current_ = std::move(queued_.front());
  queued_.pop_front();
  const bool wake = reader_waits_ && queued_.size() <= depth_ / 2;  // room for a batch again
  lock.unlock();
  if (wake) changed_.notify_all();
  return current_.get();
}

}  // namespace gpuwatch::history
