#pragma once
// `record`'s hand-off from the per-GPU collector (live/collector.hpp, as serve samples):
// each GPU's sampling thread pushes its finished samples here; record's loop takes those
// that started before a cutoff, grouped into one snapshot per tick (group_samples). A hung
// GPU only stops pushing: the others' samples keep coming (issue 16).
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include "core/snapshot.hpp"
#include "recorder/recorder_thread.hpp"

namespace gpuwatch::recorder {

class SampleQueue {
 public:
  explicit SampleQueue(std::size_t max_queued = 100'000) : max_queued_(max_queued) {}

  // From any thread. Beyond max_queued waiting samples the oldest go (counted).
  void push(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started);
  // The samples that started before CUTOFF (every one with nullopt), grouped by tick
  // (group_samples with WINDOW), oldest first.
  std::vector<core::Snapshot> take(std::optional<std::chrono::system_clock::time_point> cutoff,
                                   std::chrono::milliseconds window);
  // Returns grouped samples to the queue (a tick still waiting for a GPU that runs late).
  void put_back(std::vector<core::Snapshot> ticks);
  std::size_t dropped() const;

 private:
  mutable std::mutex mutex_;
  std::vector<TimedDevice> queue_;
  std::size_t max_queued_;
  std::size_t dropped_ = 0;
};

}  // namespace gpuwatch::recorder
