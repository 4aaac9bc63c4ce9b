#include "recorder/sample_queue.hpp"

#include <iterator>
#include <utility>

namespace gpuwatch::recorder {

void SampleQueue::push(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) {
  std::lock_guard lock(mutex_);
  if (queue_.size() >= max_queued_ && !queue_.empty()) {
    queue_.erase(queue_.begin());
    ++dropped_;
  }
  queue_.push_back(TimedDevice{device, started});
}

std::vector<core::Snapshot> SampleQueue::take(std::optional<std::chrono::system_clock::time_point> cutoff,
                                              std::chrono::milliseconds window) {
  std::vector<TimedDevice> taken, kept;
  {
    std::lock_guard lock(mutex_);
    for (auto& sample : queue_) (!cutoff || sample.started < *cutoff ? taken : kept).push_back(std::move(sample));
    queue_.swap(kept);
  }
  return group_samples(std::move(taken), window);
}

void SampleQueue::put_back(std::vector<core::Snapshot> ticks) {
  std::vector<TimedDevice> back;
  for (auto& tick : ticks) {
    for (auto& device : tick.devices) back.push_back(TimedDevice{std::move(device), tick.timestamp});
  }
  std::lock_guard lock(mutex_);
  queue_.insert(queue_.begin(), std::make_move_iterator(back.begin()), std::make_move_iterator(back.end()));
}

std::size_t SampleQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace gpuwatch::recorder
