#include "recorder/host_queue.hpp"

#include <cstdlib>

namespace gpuwatch::recorder {

void HostQueue::push(Sample sample) {
  if (!sample) return;
  std::lock_guard lock(mutex_);
  queued_.push_back(std::move(sample));
  while (queued_.size() > max_queued_) queued_.pop_front();
}

HostQueue::Sample HostQueue::take_for(std::chrono::system_clock::time_point tick, std::chrono::milliseconds window) {
  std::lock_guard lock(mutex_);
  std::size_t best = queued_.size();
  auto best_distance = std::chrono::system_clock::duration::max();
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    const auto at = queued_[i]->timestamp;
    const auto distance = at > tick ? at - tick : tick - at;
    if (distance <= window && distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  if (best == queued_.size()) {
    // None near: those long before this tick will fit no later one either.
    while (!queued_.empty() && queued_.front()->timestamp < tick - window) queued_.pop_front();
    return nullptr;
  }
  Sample taken = queued_[best];
  queued_.erase(queued_.begin(), queued_.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  return taken;
}

}  // namespace gpuwatch::recorder
