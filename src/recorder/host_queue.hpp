#pragma once
// The host samples of a live session (its collector's host thread: live::CollectorOptions::host,
// on_host_sample) waiting for the GPU tick they stand beside (issue 25): `record` and `run` write
// one host row per tick, at the tick's time. The host thread pushes; the recorder's thread takes
// the sample nearest each tick. Thread-safe; bounded.
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

#include "host_signals/host_sample.hpp"

namespace gpuwatch::recorder {

class HostQueue {
 public:
  using Sample = std::shared_ptr<const host_signals::HostSample>;
  explicit HostQueue(std::size_t max_queued = 64) : max_queued_(max_queued == 0 ? 1 : max_queued) {}

  // From the host thread. Beyond MAX_QUEUED waiting samples the oldest go.
  void push(Sample sample);
  // The queued sample nearest TICK within WINDOW either side (null: none), taken with every
  // sample before it: a sample goes to one tick at most. Ticks come in time order.
  Sample take_for(std::chrono::system_clock::time_point tick, std::chrono::milliseconds window);

 private:
  std::mutex mutex_;
  std::deque<Sample> queued_;  // in time order
  std::size_t max_queued_;
};

}  // namespace gpuwatch::recorder
